"""The design card's name for `pegas_memory.code_memory.symbols` (re-exports its public names)."""

from pegas_memory.code_memory.symbols import extract_file, iter_source_files, module_name

__all__ = ["extract_file", "iter_source_files", "module_name"]
