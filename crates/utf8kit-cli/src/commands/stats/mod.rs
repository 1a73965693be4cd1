//! `utf8kit stats`: what a text is made of.

mod blocks;
mod tally;

use std::io::{self, Write};

use serde_json::json;
use utf8kit::Utf8ErrorKind;

use crate::Status;
use crate::args::StatsArgs;
use crate::input::{self, Contents, Input};
use tally::Tally;

/// Prints statistics for each input; see [`StatsArgs`].
pub fn run(args: &StatsArgs, out: &mut impl Write) -> io::Result<Status> {
    let inputs: Vec<Input> = if args.paths.is_empty() {
        vec![Input::Stdin]
    } else {
        args.paths.iter().map(|p| Input::from_arg(p)).collect()
    };
    let mut status = Status::Ok;
    for (i, input) in inputs.iter().enumerate() {
        let name = input.display_name();
        let tally = match tally_input(input) {
            Ok(t) => t,
            Err(err) => {
                eprintln!("utf8kit: {name}: {err}");
                if args.json {
                    writeln!(out, "{}", json!({ "path": name, "error": err.to_string() }))?;
                }
                status = status.worst(Status::Trouble);
                continue;
            }
        };
        if tally.invalid_total() > 0 {
            status = status.worst(Status::Invalid);
        }
        if args.json {
            writeln!(out, "{}", to_json(&name, &tally, args.top))?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            write_text(out, &name, &tally, args.top)?;
        }
    }
    Ok(status)
}

fn tally_input(input: &Input) -> io::Result<Tally> {
    let mut tally = Tally::default();
    match input::open(input)? {
        Contents::Whole(whole) => {
            // In pieces, so a mapped file is never copied whole.
            for piece in whole.bytes().chunks(input::CHUNK) {
                tally.feed(piece);
            }
        }
        Contents::Stream(mut reader) => {
            let mut buf = vec![0; input::CHUNK];
            loop {
                let n = input::fill(&mut *reader, &mut buf)?;
                if n == 0 {
                    break;
                }
                tally.feed(&buf[..n]);
            }
        }
    }
    tally.finish();
    Ok(tally)
}

fn write_text(out: &mut impl Write, name: &str, t: &Tally, top: usize) -> io::Result<()> {
    writeln!(out, "{name}")?;
    writeln!(out, "  bytes            {}", t.bytes)?;
    writeln!(out, "  characters       {}", t.chars())?;
    writeln!(out, "  lines            {}", t.lines())?;
    writeln!(out, "  line endings     {}", t.line_ending_style())?;
    writeln!(
        out,
        "  BOM              {}",
        t.bom.map_or("none", |b| b.name())
    )?;
    writeln!(
        out,
        "  by length        1-byte {}  2-byte {}  3-byte {}  4-byte {}",
        t.by_len[0], t.by_len[1], t.by_len[2], t.by_len[3]
    )?;
    let total = t.chars().max(1) as f64;
    writeln!(out, "  blocks")?;
    for (index, count) in t.top_blocks(top) {
        writeln!(
            out,
            "    {:<40} {count:>12}  {:5.1}%",
            blocks::name(index),
            count as f64 * 100.0 / total
        )?;
    }
    if t.invalid_total() == 0 {
        writeln!(out, "  invalid          none: valid UTF-8")?;
    } else {
        writeln!(out, "  invalid          {} sequences", t.invalid_total())?;
        for (kind, count) in Utf8ErrorKind::ALL.iter().zip(t.invalid) {
            if count > 0 {
                writeln!(out, "    {:<40} {count:>12}", kind.description())?;
            }
        }
    }
    Ok(())
}

fn to_json(name: &str, t: &Tally, top: usize) -> serde_json::Value {
    let blocks: Vec<_> = t
        .top_blocks(top)
        .into_iter()
        .map(|(index, count)| json!({ "block": blocks::name(index), "chars": count }))
        .collect();
    let mut invalid = serde_json::Map::new();
    for (kind, count) in Utf8ErrorKind::ALL.iter().zip(t.invalid) {
        invalid.insert(kind.snake_name().to_owned(), count.into());
    }
    json!({
        "path": name,
        "bytes": t.bytes,
        "chars": t.chars(),
        "lines": t.lines(),
        "line_endings": {
            "style": t.line_ending_style(),
            "lf": t.lf,
            "crlf": t.crlf,
            "cr": t.cr,
        },
        "bom": t.bom.map(|b| b.name()),
        "chars_by_length": { "1": t.by_len[0], "2": t.by_len[1], "3": t.by_len[2], "4": t.by_len[3] },
        "blocks": blocks,
        "invalid": t.invalid_total(),
        "invalid_by_kind": invalid,
    })
}
