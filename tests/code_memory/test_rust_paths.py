"""Rust calls real repositories left unresolved (issue 29, xsv): a parameter of a generic type
(``idx: Indexed<File, File>``) imported with a 2015-edition path (``use index::Indexed``, no
``crate::``) calls that type's methods."""

from __future__ import annotations

from pathlib import Path

from pegas_memory.code_memory.graph import resolve
from pegas_memory.code_memory.repo_files import cargo_crates
from tests.code_fixtures import call_edges, indexed_files

XSV = {
    "Cargo.toml": '[package]\nname = "xsv"\nversion = "0.1.0"\n',
    "src/index.rs": """
        /// Индексированный читатель / an indexed reader.
        pub struct Indexed<R, I> { rdr: R, idx: I }

        impl<R, I> Indexed<R, I> {
            pub fn count(&self) -> u64 { 0 }
            pub fn seek(&mut self, i: u64) -> u64 { i }
        }
        """,
    "src/main.rs": """
        mod index;
        use index::Indexed;
        use std::fs::File;

        fn run(mut idx: Indexed<File, File>) -> u64 {
            idx.seek(1);
            idx.count()
        }

        fn other(idx: &mut Indexed<File, File>) -> u64 {
            idx.count()
        }
        """,
}


def test_generic_parameter_types_through_2015_paths(tmp_path: Path) -> None:
    files = indexed_files(tmp_path, XSV)
    deps = resolve(files, crates=cargo_crates(tmp_path, [f.path for f in files]))
    calls = call_edges(deps)
    assert ("src/main.run", "src/index.Indexed.seek") in calls
    assert ("src/main.run", "src/index.Indexed.count") in calls
    assert ("src/main.other", "src/index.Indexed.count") in calls
