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


EDITION_2015 = {
    "Cargo.toml": '[package]\nname = "xsv"\nversion = "0.1.0"\n',
    "src/main.rs": """
        mod cmd;
        mod config;
        mod util;
        use std::io;

        pub type CliResult<T> = Result<T, String>;

        fn main() {
            cmd::cat::run();
            io::stdout();
        }
        """,
    "src/cmd/mod.rs": "pub mod cat;\n",
    "src/cmd/cat.rs": """
        use CliResult;
        use config::Config;
        use util;

        pub fn run() -> CliResult<()> {
            util::get_args();
            ::util::version();
            let n = ::config::Config::new().delimiter(b',').reader();
            Config::new().no_headers().reader();
            Ok(())
        }
        """,
    "src/config.rs": """
        /// Настройки чтения / reading settings.
        pub struct Config { delimiter: u8 }

        impl Config {
            pub fn new() -> Config { Config { delimiter: b',' } }
            pub fn delimiter(mut self, d: u8) -> Config { self.delimiter = d; self }
            pub fn no_headers(self) -> Config { self }
            pub fn reader(&self) -> u64 { 0 }
        }
        """,
    "src/util.rs": """
        pub fn get_args() {}
        pub fn version() -> String { String::new() }
        """,
}


def test_2015_edition_paths_and_chains_stay_in_the_crate(tmp_path: Path) -> None:
    """``use util;`` / ``::util::x`` (crate-relative without ``crate::``), ``cmd::cat::run``
    (a child module) and a builder chain headed by such a path resolve into the crate; a path
    through an import of ``std`` stays external."""
    files = indexed_files(tmp_path, EDITION_2015)
    deps = resolve(files, crates=cargo_crates(tmp_path, [f.path for f in files]))
    calls = call_edges(deps)
    run = "src/cmd/cat.run"
    assert ("src/main.main", run) in calls
    assert (run, "src/util.get_args") in calls
    assert (run, "src/util.version") in calls
    assert (run, "src/config.Config.new") in calls
    assert (run, "src/config.Config.delimiter") in calls
    assert (run, "src/config.Config.no_headers") in calls
    assert (run, "src/config.Config.reader") in calls
    imports = {(d.src, d.dst) for d in deps if d.kind == "imports"}
    assert ("src/cmd/cat", "src/util") in imports
    assert ("src/cmd/cat", "src/config.Config") in imports
    stdout = [d for d in deps if d.dst_name == "io::stdout"]
    assert [d.target_kind for d in stdout] == ["external"]


CHAINS = {
    "Cargo.toml": '[package]\nname = "xsv"\nversion = "0.1.0"\n',
    "src/main.rs": """
        mod config;
        mod index;

        pub type CliResult<T> = Result<T, String>;
        """,
    "src/index.rs": """
        pub struct Indexed { n: u64 }

        impl Indexed {
            pub fn count(&self) -> u64 { self.n }
        }
        """,
    "src/config.rs": """
        use CliResult;
        use index::Indexed;

        /// Настройки / settings.
        pub struct Config { rows: Vec<Config> }

        impl Config {
            pub fn reader(&self) -> CliResult<Indexed> { Ok(Indexed { n: 0 }) }
            pub fn indexed(&self) -> CliResult<Option<Indexed>> { Ok(None) }
            pub fn len(&self) -> usize { 0 }
        }
        """,
    "src/cmd.rs": """
        use CliResult;
        use config::Config;

        struct Args { rows: Vec<Config> }

        impl Args {
            fn len(&self) -> usize { self.rows.len() }

            fn rconfig(&self) -> Config { Config { rows: vec![] } }

            fn total(&self) -> CliResult<u64> {
                let conf = self.rconfig();
                let n = match conf.indexed()? {
                    Some(idx) => idx.count(),
                    None => 0,
                };
                if let Ok(first) = conf.reader() {
                    return Ok(first.count());
                }
                Ok(n)
            }

            fn sorted(&self, rows: Vec<u64>) -> u64 {
                let idx = self.rconfig().reader().unwrap();
                let n: u64 = rows.iter().map(|r| idx.count() + r).sum();
                n + rows.iter().map(|idx| idx.count()).sum::<u64>()
            }

            fn run(&self) -> CliResult<u64> {
                let n = self.rconfig().reader()?.count();
                let m = self.rconfig().indexed().unwrap().unwrap().count();
                Ok(n + m + self[0].len() as u64)
            }
        }
        """,
}


def test_chains_from_self_through_result_aliases(tmp_path: Path) -> None:
    """``self.rconfig().reader()?.count()``: a chain from ``self`` is typed by the method's own
    type; ``?`` and each unwrap take one wrapper off, the crate's ``CliResult<T>`` alias too
    (``CliResult<Option<Indexed>>`` unwrapped twice is ``Indexed``); ``self[0].len()``
    (an index) is no call on ``self``'s type; ``Some(x)``/``Ok(x)`` of a ``match`` or
    ``if let`` binds ``x`` to the unwrapped value; a closure sees the function's locals but
    not those its parameters hide."""
    files = indexed_files(tmp_path, CHAINS)
    deps = resolve(files, crates=cargo_crates(tmp_path, [f.path for f in files]))
    calls = call_edges(deps)
    run = "src/cmd.Args.run"
    assert (run, "src/cmd.Args.rconfig") in calls
    assert (run, "src/config.Config.reader") in calls
    assert (run, "src/config.Config.indexed") in calls
    assert (run, "src/index.Indexed.count") in calls
    assert (run, "src/cmd.Args.len") not in calls
    # ``match conf.indexed()? { Some(idx) => idx.count() }``, ``if let Ok(first) = ..``
    assert ("src/cmd.Args.total", "src/index.Indexed.count") in calls
    lines = {d.line for d in deps if d.dst == "src/index.Indexed.count" and "total" in d.src}
    assert lines == {14, 18}
    # Inside a closure the function's ``idx`` is seen, unless a parameter hides it.
    sorted_lines = {
        d.line for d in deps if d.dst == "src/index.Indexed.count" and "sorted" in d.src
    }
    assert sorted_lines == {25}


ELEMENTS = {
    "Cargo.toml": '[package]\nname = "glob"\nversion = "0.1.0"\n',
    "src/lib.rs": """
        /// Шаблон / a pattern.
        pub struct Pattern { text: String }

        impl Pattern {
            pub fn matches_with(&self, s: &str) -> bool { s == self.text }
            pub fn as_str(&self) -> &str { &self.text }
        }

        pub struct Paths { dir_patterns: Vec<Pattern>, tokens: [Pattern; 2] }

        impl Paths {
            fn next(&self, idx: usize) -> bool {
                self.dir_patterns[idx].matches_with("x")
            }

            fn all(&self) -> usize {
                let mut n = 0;
                for p in self.dir_patterns.iter() {
                    n += p.as_str().len();
                }
                for t in &self.tokens {
                    t.as_str();
                }
                n
            }
        }

        fn fill(patterns: &[Pattern], idx: usize) -> bool {
            let pattern = &patterns[idx];
            pattern.as_str().is_empty()
        }

        fn each(stats: Vec<Pattern>) {
            for mut stat in stats.into_iter() {
                let run = move || { stat.as_str(); };
                run();
            }
        }
        """,
}


def test_loop_and_index_elements_of_declared_sequences(tmp_path: Path) -> None:
    files = indexed_files(tmp_path, ELEMENTS)
    calls = call_edges(resolve(files, crates=cargo_crates(tmp_path, [f.path for f in files])))
    assert ("src/lib.Paths.next", "src/lib.Pattern.matches_with") in calls  # a field's element
    assert ("src/lib.Paths.all", "src/lib.Pattern.as_str") in calls  # for p in v.iter()
    assert ("src/lib.fill", "src/lib.Pattern.as_str") in calls  # let p = &patterns[idx]
    assert ("src/lib.each", "src/lib.Pattern.as_str") in calls  # a loop variable in a closure
