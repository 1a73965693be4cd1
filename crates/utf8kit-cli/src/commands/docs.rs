//! `utf8kit completions` and `utf8kit man`: generated from the clap
//! definition, so they never drift from the real options.

use std::io::{self, Write};

use clap::CommandFactory;

use crate::Status;
use crate::args::{Cli, CompletionsArgs, ManArgs};

/// Prints a completion script.
pub fn completions(args: &CompletionsArgs, out: &mut impl Write) -> io::Result<Status> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "utf8kit", out);
    Ok(Status::Ok)
}

/// Prints the main man page or writes all pages to a directory.
pub fn man(args: &ManArgs, out: &mut impl Write) -> io::Result<Status> {
    let command = Cli::command();
    match &args.dir {
        None => {
            clap_mangen::Man::new(command).render(out)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            clap_mangen::generate_to(command, dir)?;
            writeln!(out, "man pages written to {}", dir.display())?;
        }
    }
    Ok(Status::Ok)
}
