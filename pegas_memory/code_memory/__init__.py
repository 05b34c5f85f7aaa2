"""Code memory: tree-sitter symbols and dependencies (pure: `model`, `syntax`, `symbols`,
`python`, `generic` with `call_sites`, `import_statements` and `distinct_names`, `flow`, `graph`)
and their storage and queries (`index`, `store`, `query`)."""

from pegas_memory.code_memory.index import CodeMemory

__all__ = ["CodeMemory"]
