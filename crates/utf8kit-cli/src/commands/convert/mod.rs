//! `utf8kit convert`: between UTF-8, UTF-16, UTF-32, Latin-1, CESU-8 and
//! Modified UTF-8, streaming in constant memory, never losing the input.

mod codec;
mod sink;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use crate::Status;
use crate::args::{BomPolicy, ConvertArgs};
use crate::encodings::Encoding;
use crate::input;
use codec::{ConvertError, Decoder, Encoder};
use sink::Sink;

/// Why one conversion did not complete.
enum Failure {
    /// The input is invalid in the source encoding (strict mode), or a
    /// character has no form in the target.
    Data(ConvertError),
    /// Reading or writing failed.
    Io(String),
}

/// Converts every input; see [`ConvertArgs`].
pub fn run(args: &ConvertArgs, _out: &mut impl Write) -> io::Result<Status> {
    let (from, to) = match (Encoding::parse(&args.from), Encoding::parse(&args.to)) {
        (Ok(f), Ok(t)) => (f, t),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("utf8kit convert: {e}");
            return Ok(Status::Trouble);
        }
    };
    if args.bom == BomPolicy::Add && to.bom().is_none() {
        eprintln!("utf8kit convert: {to} has no byte-order mark; use --bom keep or strip");
        return Ok(Status::Trouble);
    }
    if args.in_place {
        if args.paths.is_empty() || args.output.is_some() {
            eprintln!("utf8kit convert: --in-place needs file paths and no -o");
            return Ok(Status::Trouble);
        }
        let mut status = Status::Ok;
        for path in &args.paths {
            let name = path.to_string_lossy();
            let result = File::open(path)
                .map_err(|e| Failure::Io(e.to_string()))
                .and_then(|file| {
                    let sink =
                        Sink::to_path(path, args.backup).map_err(|e| Failure::Io(e.to_string()))?;
                    convert_one(file, sink, from, to, args, &name)
                });
            status = status.worst(report(&name, result));
        }
        return Ok(status);
    }
    if args.paths.len() > 1 {
        eprintln!("utf8kit convert: several inputs need --in-place (or convert them one by one)");
        return Ok(Status::Trouble);
    }
    let input_path = args.paths.first().filter(|p| p.as_os_str() != "-");
    let name = input_path.map_or_else(|| "<stdin>".into(), |p| p.to_string_lossy());
    let reader: Box<dyn Read> = match input_path {
        None => Box::new(io::stdin().lock()),
        Some(p) => match File::open(p) {
            Ok(f) => Box::new(f),
            Err(e) => return Ok(report(&name, Err(Failure::Io(e.to_string())))),
        },
    };
    if let (Some(inp), Some(outp)) = (input_path, &args.output)
        && same_file(inp, outp)
    {
        eprintln!("utf8kit convert: {name}: input and output are the same file; use --in-place");
        return Ok(Status::Trouble);
    }

    let sink = match &args.output {
        None => Sink::stdout(),
        Some(path) => match Sink::to_path(path, args.backup) {
            Ok(s) => s,
            Err(e) => {
                let msg = format!("cannot write {}: {e}", path.display());
                return Ok(report(&name, Err(Failure::Io(msg))));
            }
        },
    };
    Ok(report(
        &name,
        convert_one(reader, sink, from, to, args, &name),
    ))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Prints the outcome of one conversion and turns it into a status.
fn report(name: &str, result: Result<(), Failure>) -> Status {
    match result {
        Ok(()) => Status::Ok,
        Err(Failure::Data(e)) => {
            eprintln!(
                "utf8kit convert: {name}: {e}; nothing written (use --lossy to replace errors)"
            );
            Status::Invalid
        }
        Err(Failure::Io(e)) => {
            eprintln!("utf8kit convert: {name}: {e}");
            Status::Trouble
        }
    }
}

fn convert_one(
    mut reader: impl Read,
    mut sink: Sink,
    from: Encoding,
    to: Encoding,
    args: &ConvertArgs,
    name: &str,
) -> Result<(), Failure> {
    let mut decoder = Decoder::new(from, args.lossy);
    let mut encoder = Encoder::new(to, args.lossy);
    let mut chunk = vec![0; input::CHUNK];
    let mut text = String::new();
    let mut bytes = Vec::new();
    let mut bom_settled = false;
    let io_err = |what: &str, e: io::Error| Failure::Io(format!("{what}: {e}"));
    loop {
        let n = input::fill(&mut reader, &mut chunk).map_err(|e| io_err("cannot read", e))?;
        let last = n == 0;
        text.clear();
        decoder
            .decode(&chunk[..n], last, &mut text)
            .map_err(Failure::Data)?;
        bytes.clear();
        let mut body = text.as_str();
        if !bom_settled && (!body.is_empty() || last) {
            bom_settled = true;
            let had_bom = body.starts_with('\u{FEFF}');
            if had_bom {
                body = &body['\u{FEFF}'.len_utf8()..];
            }
            let write_bom = match args.bom {
                BomPolicy::Keep => had_bom,
                BomPolicy::Strip => false,
                BomPolicy::Add => true,
            };
            if write_bom {
                bytes.extend_from_slice(to.bom().unwrap_or_default());
            }
        }
        encoder.encode(body, &mut bytes).map_err(Failure::Data)?;
        sink.write_all(&bytes)
            .map_err(|e| io_err("cannot write output", e))?;
        if last {
            break;
        }
    }
    sink.commit()
        .map_err(|e| io_err("cannot write output", e))?;
    let replaced = decoder.replacements + encoder.replacements;
    if args.lossy && replaced > 0 {
        eprintln!(
            "utf8kit convert: {name}: {} invalid sequence(s) replaced with U+FFFD, {} character(s) with '?'",
            decoder.replacements, encoder.replacements
        );
    }
    Ok(())
}
