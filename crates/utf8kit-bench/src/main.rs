//! utf8kit-bench: throughput of utf8kit against std, simdutf8, simdutf (C++) and
//! encoding_rs, with memcpy/memchr as memory-speed references.
//!
//! ```text
//! cargo run --release -p utf8kit-bench                 # full run: tables of GB/s and ratios
//! cargo run --release -p utf8kit-bench -- --quick      # fewer rounds and sizes (< 3 min)
//! cargo run --release -p utf8kit-bench -- --check      # contenders agree? (no timing)
//! cargo run --release -p utf8kit-bench -- --quick --markdown   # tables for BENCHMARKS.md
//! ```
//!
//! Layout: [`inputs`] builds the texts, [`ops`] declares what is measured (one module per
//! operation), [`harness`] times interleaved rounds, [`report`] renders the tables,
//! [`check`] is the sanity mode. A custom harness rather than criterion because the
//! machines are shared and noisy: contenders must be measured round-robin in one process
//! so that ratios compare samples taken moments apart.

// `deny`, not `forbid`: ops/utf16.rs allows it for simdutf's raw-pointer conversions.
#![deny(unsafe_code)]

/// `out!` that ends the process quietly (exit 0) when stdout is closed, as with
/// `| head`, instead of panicking or going on measuring for nobody.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod args;
mod check;
mod harness;
mod inputs;
mod machine;
mod ops;
mod report;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use args::{Args, Command};
use harness::Config;
use inputs::{Family, Kind, Size};
use ops::{Operation, RowKey};
use report::RowResult;

/// Sizes swept for the families whose size behaviour is reported (`--quick` / full).
const QUICK_SIZES: &[usize] = &[64, 64 << 10, 1 << 20];
const FULL_SIZES: &[usize] = &[64, 1 << 10, 64 << 10, 1 << 20, 64 << 20];
/// Rounds per row (`--quick` / full); `--reps` overrides.
const QUICK_REPS: usize = 15;
const FULL_REPS: usize = 21;
/// Size of the other corpus files, which are compared with each other.
const CORPUS_SIZE: usize = 1 << 20;

fn main() -> ExitCode {
    let args = match args::parse(std::env::args().skip(1)) {
        Ok(Command::Run(args)) => args,
        Ok(Command::Help) => {
            out!("{}", args::HELP.trim_end());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("utf8kit-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let families = match inputs::corpus_dir().and_then(|dir| inputs::families(&dir)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("utf8kit-bench: {e}");
            return ExitCode::from(2);
        }
    };
    let mut ops = ops::all();
    for op in &ops {
        op.assert_consistent();
    }

    if args.list {
        list(&ops, &families);
        ExitCode::SUCCESS
    } else if args.check {
        let sizes = args
            .sizes
            .clone()
            .unwrap_or_else(|| check::SIZES.iter().map(|&n| Size(n)).collect());
        if check::run(&mut ops, &families, &sizes, &args.filters) {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        }
    } else {
        bench(&mut ops, &families, &args);
        ExitCode::SUCCESS
    }
}

/// Whether `--filter` keeps a measurement: some filter is a substring of
/// `operation/input/size/contender` (filters are lowercased by the parser).
pub fn selected(filters: &[String], op: &str, key: &RowKey, contender: &str) -> bool {
    if filters.is_empty() {
        return true;
    }
    let id = format!("{op}/{}/{}/{contender}", key.input, key.size).to_lowercase();
    filters.iter().any(|f| id.contains(f.as_str()))
}

/// Rows to measure, in report order: the corpus files compared at one size first, then
/// the families swept over sizes (Latin, ASCII, random, sparse).
fn plan<'a>(families: &'a [Family], args: &Args) -> Vec<(&'a Family, Size)> {
    let swept = |f: &Family| f.kind != Kind::Lipsum || f.name == "Latin";
    let sweep = if args.quick { QUICK_SIZES } else { FULL_SIZES };
    let mut out = Vec::new();
    for second_pass in [false, true] {
        for fam in families.iter().filter(|f| swept(f) == second_pass) {
            let sizes: Vec<Size> = match &args.sizes {
                Some(sizes) => sizes.clone(),
                None if swept(fam) => sweep.iter().map(|&n| Size(n)).collect(),
                None => vec![Size(CORPUS_SIZE)],
            };
            out.extend(sizes.into_iter().map(|s| (fam, s)));
        }
    }
    out
}

/// The benchmark: every operation over the plan, one table (plus summaries) per operation.
fn bench(ops: &mut [Operation], families: &[Family], args: &Args) {
    let cfg = Config {
        reps: args
            .reps
            .unwrap_or(if args.quick { QUICK_REPS } else { FULL_REPS }),
        target: Duration::from_millis(if args.quick { 5 } else { 10 }),
    };
    let plan = plan(families, args);
    let started = Instant::now();
    print_header(&cfg, args.markdown);
    for op in ops.iter_mut() {
        let rows = measure_operation(op, &plan, &args.filters, &cfg);
        if rows.is_empty() {
            continue;
        }
        print_table(&report::operation_table(op, &rows, cfg.reps), args.markdown);
        for s in &op.summaries {
            if let Some(t) = report::summary_table(op, &rows, s) {
                print_table(&t, args.markdown);
            }
        }
    }
    eprintln!("done in {:.0} s", started.elapsed().as_secs_f64());
}

/// Command, machine and method, so a pasted table says where it came from.
fn print_header(cfg: &Config, markdown: bool) {
    let flags: Vec<String> = std::env::args().skip(1).collect();
    let mut lines = vec![if flags.is_empty() {
        "command: cargo run --release -p utf8kit-bench".to_string()
    } else {
        format!(
            "command: cargo run --release -p utf8kit-bench -- {}",
            flags.join(" ")
        )
    }];
    lines.extend(machine::describe());
    lines.push(format!(
        "method: {} interleaved rounds per row, each sample ≥ {} ms (calibrated), median reported",
        cfg.reps,
        cfg.target.as_millis()
    ));
    for line in &lines {
        if markdown {
            out!("- {line}");
        } else {
            out!("{line}");
        }
    }
    out!();
}

/// Measures one operation on every planned row that the filters keep.
fn measure_operation(
    op: &mut Operation,
    plan: &[(&Family, Size)],
    filters: &[String],
    cfg: &Config,
) -> Vec<RowResult> {
    // A progress line only for a person watching; logs and redirected runs stay clean.
    let progress = std::io::stderr().is_terminal();
    let mut rows = Vec::new();
    for (n, &(fam, size)) in plan.iter().enumerate() {
        let key = RowKey {
            input: fam.name.clone(),
            kind: fam.kind,
            size,
        };
        let Some(active) = active_contenders(op, &key, filters) else {
            continue;
        };
        // One text, or for a fresh family the texts taken in turn (none below 2: that row
        // is the plain family's).
        let data = fam.texts(op.encoding, size.0);
        if data[0].byte_len() == 0 || (fam.fresh && data.len() < 2) {
            continue;
        }
        if progress {
            eprint!(
                "\r[{}/{}] {} {} {}        ",
                n + 1,
                plan.len(),
                op.name,
                key.input,
                key.size
            );
            let _ = std::io::stderr().flush();
        }
        let mut runs: Vec<&mut ops::Run> = op
            .contenders
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| active.contains(i))
            .map(|(_, c)| &mut c.run)
            .collect();
        // `measure` returns the active contenders' samples in index order; spread them
        // back over all contenders, `None` for those that did not run.
        let mut measured = harness::measure(&mut runs, &data, cfg).into_iter();
        let samples = (0..op.contenders.len())
            .map(|i| {
                if active.contains(&i) {
                    measured.next()
                } else {
                    None
                }
            })
            .collect();
        rows.push(RowResult { key, samples });
    }
    if progress {
        eprint!("\r{:60}\r", "");
    }
    rows
}

/// Contenders to run on a row (indices), or `None` if the filter keeps none. The ratios'
/// numerators (utf8kit) always join a kept row so its ratios stay defined.
fn active_contenders(op: &Operation, key: &RowKey, filters: &[String]) -> Option<Vec<usize>> {
    if !(op.rows)(key) {
        return None;
    }
    let applies = |i: usize| (op.contenders[i].applies)(key);
    let mut active: Vec<usize> = (0..op.contenders.len())
        .filter(|&i| applies(i) && selected(filters, op.name, key, &op.contenders[i].name))
        .collect();
    if active.is_empty() {
        return None;
    }
    for r in &op.ratios {
        if let Some(i) = op.index_of(r.numerator)
            && applies(i)
            && !active.contains(&i)
        {
            active.push(i);
        }
    }
    active.sort_unstable();
    Some(active)
}

fn print_table(t: &report::Table, markdown: bool) {
    if markdown {
        out!("{}", t.markdown());
    } else {
        out!("{}", t.plain());
    }
}

/// `--list`: what `--filter` can match.
fn list(ops: &[Operation], families: &[Family]) {
    for op in ops {
        out!(
            "operation {} ({:?} inputs, oracle {})",
            op.name,
            op.encoding,
            op.oracle
        );
        for c in &op.contenders {
            out!("    {:<45} {:<12} {:?}", c.name, c.label, c.role);
        }
    }
    out!("inputs:");
    for f in families {
        out!("    {:<10} {:?}", f.name, f.kind);
    }
}
