//! `utf8kit validate`: report where inputs are not valid UTF-8.
//!
//! Inputs are discovered first (directories walked with ripgrep's ignore
//! rules), then checked by one worker per core; reports are printed in input
//! order as soon as all earlier inputs are done, so output is deterministic.

mod check;
mod discover;
mod output;
mod summary;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::Status;
use crate::args::{ColorChoice, ValidateArgs};
use crate::input::Input;
use check::{CheckOptions, Outcome};
use discover::WalkOptions;
use output::Palette;
use summary::Summary;

/// A progress bar is shown only for jobs at least this big.
const PROGRESS_MIN_FILES: usize = 64;
const PROGRESS_MIN_BYTES: u64 = 256 << 20;

/// Checks every input and prints its errors; see [`ValidateArgs`].
pub fn run(args: &ValidateArgs, out: &mut impl Write) -> io::Result<Status> {
    let started = Instant::now();
    let walk = WalkOptions {
        hidden: args.hidden,
        no_ignore: args.no_ignore,
        follow: args.follow,
        globs: args.globs.clone(),
    };
    let found = discover::discover(&args.paths, &walk);
    let mut status = Status::Ok;
    for (path, problem) in &found.problems {
        if !args.quiet {
            eprintln!("utf8kit: {path}: {problem}");
        }
        status = status.worst(Status::Trouble);
    }

    // 0 means "no limit"; without the flag, text shows the first error of
    // each input and JSON shows them all.
    let keep = match args.max_errors {
        Some(0) => None,
        Some(n) => Some(n),
        None if args.json => None,
        None => Some(1),
    };
    let options = CheckOptions {
        keep,
        skip_binary: args.skip_binary,
        quiet: args.quiet,
    };
    let palette = Palette::new(use_color(args.color));
    let progress = Progress::start(args, &found.inputs);

    let mut summary = Summary::default();
    let mut write_error = None;
    let threads = worker_count(args.threads, found.inputs.len());
    check_all(
        &found.inputs,
        options,
        threads,
        &progress.bytes,
        |index, outcome| {
            let input = &found.inputs[index];
            let name = input.display_name();
            progress.file_done();
            match &outcome {
                Outcome::Checked { bytes, counts, .. } => {
                    summary.files += 1;
                    summary.bytes += bytes;
                    if outcome.is_invalid() {
                        summary.invalid_files += 1;
                        status = status.worst(Status::Invalid);
                    }
                    for (total, n) in summary.errors.iter_mut().zip(counts) {
                        *total += n;
                    }
                }
                Outcome::SkippedBinary => summary.skipped_binary += 1,
                Outcome::Unreadable(message) => {
                    summary.unreadable += 1;
                    status = status.worst(Status::Trouble);
                    if !args.quiet {
                        progress.suspend(|| eprintln!("utf8kit: {name}: {message}"));
                    }
                }
            }
            if !args.quiet && write_error.is_none() {
                let result = output::write_report(out, args.json, palette, &name, &outcome);
                if let Err(e) = result {
                    write_error = Some(e);
                }
            }
        },
    );
    progress.finish();
    if let Some(e) = write_error {
        return Err(e);
    }
    if args.summary && !args.quiet {
        let elapsed = started.elapsed();
        if args.json {
            writeln!(out, "{}", summary.to_json(elapsed))?;
        } else {
            summary.write_text(out, elapsed)?;
        }
    }
    Ok(status)
}

/// Checks `inputs` on `threads` workers and hands each outcome to `report`
/// on this thread, in input order.
fn check_all(
    inputs: &[Input],
    options: CheckOptions,
    threads: usize,
    bytes_done: &AtomicU64,
    mut report: impl FnMut(usize, Outcome),
) {
    if threads <= 1 {
        for (index, input) in inputs.iter().enumerate() {
            report(index, check::check(input, options, bytes_done));
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(input) = inputs.get(index) else {
                        break;
                    };
                    let outcome = check::check(input, options, bytes_done);
                    if sender.send((index, outcome)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Reorder: hold early finishers until every earlier input is reported.
        let mut pending = BTreeMap::new();
        let mut wanted = 0;
        for (index, outcome) in receiver {
            pending.insert(index, outcome);
            while let Some(outcome) = pending.remove(&wanted) {
                report(wanted, outcome);
                wanted += 1;
            }
        }
    });
}

fn worker_count(requested: Option<usize>, inputs: usize) -> usize {
    requested.unwrap_or(crate::cores()).clamp(1, inputs.max(1))
}

/// Colour on stdout: `always`, `never`, or (auto) when stdout is a terminal
/// and `NO_COLOR` is not set to something non-empty.
fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// The progress bar on stderr, when one is wanted.
struct Progress {
    bar: Option<ProgressBar>,
    bytes: AtomicU64,
}

impl Progress {
    /// A bar only when stderr is a terminal, output is for people (not JSON,
    /// not quiet) and the job is long enough to be worth watching.
    fn start(args: &ValidateArgs, inputs: &[Input]) -> Progress {
        let wanted = !args.json && !args.quiet && io::stderr().is_terminal();
        let total_bytes: u64 = if wanted {
            inputs
                .iter()
                .filter_map(|i| match i {
                    Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
                    Input::Stdin => None,
                })
                .sum()
        } else {
            0
        };
        let big = inputs.len() >= PROGRESS_MIN_FILES || total_bytes >= PROGRESS_MIN_BYTES;
        let bar = (wanted && big).then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(inputs.len() as u64),
                ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} files {msg}",
            ) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Progress {
            bar,
            bytes: AtomicU64::new(0),
        }
    }

    fn file_done(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            let done = self.bytes.load(Ordering::Relaxed);
            bar.set_message(summary::human_bytes(done as f64));
        }
    }

    fn suspend(&self, f: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
