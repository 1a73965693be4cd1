//! `utf8kit`: find where UTF-8 is broken and why, explain byte sequences,
//! inspect characters.
//!
//! The binary only parses arguments, reads inputs and formats results; every
//! decision about bytes is made by the `utf8kit` engine crate.

mod args;
mod commands;
mod encodings;
mod errors;
mod hex;
mod input;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

/// Exit statuses shared by every subcommand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Everything was valid (or the command has nothing to judge).
    Ok = 0,
    /// Some input was invalid.
    Invalid = 1,
    /// Some input could not be read, or the command line was unusable.
    Trouble = 2,
}

impl Status {
    /// The worse of two statuses: trouble beats invalid beats ok.
    fn worst(self, other: Status) -> Status {
        if (other as u8) > (self as u8) {
            other
        } else {
            self
        }
    }
}

/// Cores available to this process, asked once: the answer reads several
/// cgroup files, too slow to repeat per input.
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Validate(args) => commands::validate::run(&args, &mut out),
        Command::Explain(args) => commands::explain::run(&args, &mut out),
        Command::Inspect(args) => commands::inspect::run(&args, &mut out),
        Command::Convert(args) => commands::convert::run(&args, &mut out),
        Command::Stats(args) => commands::stats::run(&args, &mut out),
        Command::Completions(args) => commands::docs::completions(&args, &mut out),
        Command::Man(args) => commands::docs::man(&args, &mut out),
    };
    let status = match result.and_then(|status| out.flush().map(|()| status)) {
        Ok(status) => status,
        // A closed pipe (`utf8kit ... | head`) is the reader's choice, not an error.
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => Status::Ok,
        Err(err) => {
            eprintln!("utf8kit: cannot write output: {err}");
            Status::Trouble
        }
    };
    ExitCode::from(status as u8)
}
