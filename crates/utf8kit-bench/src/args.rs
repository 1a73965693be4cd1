//! Command-line flags (a handful, parsed by hand to keep the harness dependency-free).

use crate::inputs::Size;

/// Usage text for `--help`.
pub const HELP: &str = "\
utf8kit-bench: throughput of utf8kit against its peers, measured interleaved in one process

USAGE:
    cargo run --release -p utf8kit-bench -- [FLAGS]

FLAGS:
    --quick            fewer rounds and sizes (64, 64K, 1M); finishes in well under 3 minutes
    --check            run every contender once on every input (plus corrupted variants) and
                       verify they agree with the oracle; no timing
    --filter SUBSTR    keep only measurements whose \"operation/input/size/contender\" contains
                       SUBSTR (case-insensitive; repeatable, any match keeps). The ratios'
                       reference contenders always run on a kept row.
    --sizes LIST       comma-separated sizes for every input, e.g. 64,1K,64K,1M,64M
                       (default: Latin and the generated inputs at 64,1K,64K,1M,64M;
                       the other lipsum files at 1M)
    --reps N           rounds per measurement (default 21, --quick 15)
    --markdown         print Markdown tables (for BENCHMARKS.md)
    --list             list operations, contenders and inputs, then exit
    -h, --help         this text

ENVIRONMENT:
    UTF8KIT_CORPUS     directory of the lipsum corpus (default: shared/corpus/lipsum beside
                       the workspace root)
";

/// Parsed flags.
#[derive(Debug, Default, PartialEq)]
pub struct Args {
    /// `--quick`.
    pub quick: bool,
    /// `--check`.
    pub check: bool,
    /// `--markdown`.
    pub markdown: bool,
    /// `--list`.
    pub list: bool,
    /// `--filter` values, lowercased.
    pub filters: Vec<String>,
    /// `--sizes`.
    pub sizes: Option<Vec<Size>>,
    /// `--reps`.
    pub reps: Option<usize>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Run (benchmark, check or list).
    Run(Args),
    /// Print [`HELP`].
    Help,
}

/// Parses the arguments after the program name. Accepts `--flag value` and `--flag=value`.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut out = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg, None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--quick" => out.quick = true,
            "--check" => out.check = true,
            "--markdown" => out.markdown = true,
            "--list" => out.list = true,
            "--filter" => out.filters.push(value("--filter")?.to_lowercase()),
            "--sizes" => {
                let sizes = value("--sizes")?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(Size::parse)
                    .collect::<Result<Vec<_>, _>>()?;
                if sizes.is_empty() {
                    return Err("--sizes needs at least one size".into());
                }
                out.sizes = Some(sizes);
            }
            "--reps" => {
                let v = value("--reps")?;
                match v.parse::<usize>() {
                    Ok(n) if n > 0 => out.reps = Some(n),
                    _ => return Err(format!("--reps needs a positive integer, got {v:?}")),
                }
            }
            // `cargo bench` style invocations pass this; it means nothing here.
            "--bench" => {}
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    Ok(Command::Run(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn flags() {
        let Command::Run(a) = run(&[
            "--quick",
            "--filter",
            "Arabic",
            "--filter=SIMD",
            "--sizes=64,1K",
            "--reps",
            "5",
        ])
        .unwrap() else {
            panic!("expected a run");
        };
        assert!(a.quick && !a.check && !a.markdown);
        assert_eq!(a.filters, ["arabic", "simd"]);
        assert_eq!(a.sizes, Some(vec![Size(64), Size(1024)]));
        assert_eq!(a.reps, Some(5));
        assert_eq!(run(&["--help"]), Ok(Command::Help));
    }

    #[test]
    fn errors_name_the_flag() {
        assert!(run(&["--reps", "0"]).unwrap_err().contains("--reps"));
        assert!(run(&["--reps"]).unwrap_err().contains("--reps"));
        assert!(run(&["--sizes", "1Q"]).unwrap_err().contains("1Q"));
        assert!(run(&["--nope"]).unwrap_err().contains("--nope"));
    }
}
