//! Printing reports: text lines (optionally coloured) or JSON Lines.

use std::io::{self, Write};

use serde_json::json;

use super::check::Outcome;
use crate::errors::Located;
use crate::hex;

/// ANSI styles, or nothing when colour is off.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    on: bool,
}

impl Palette {
    /// Colour on or off.
    pub fn new(on: bool) -> Palette {
        Palette { on }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// Writes one input's report in the chosen format.
pub fn write_report(
    out: &mut impl Write,
    json_mode: bool,
    palette: Palette,
    name: &str,
    outcome: &Outcome,
) -> io::Result<()> {
    if json_mode {
        return write_json(out, name, outcome);
    }
    if let Outcome::Checked { errors, .. } = outcome {
        for err in errors {
            write_text(out, palette, name, err)?;
        }
    }
    Ok(())
}

/// `PATH:LINE:COLUMN: KIND at byte OFFSET: HEX`
fn write_text(out: &mut impl Write, palette: Palette, name: &str, err: &Located) -> io::Result<()> {
    writeln!(
        out,
        "{}:{}:{}: {} at byte {}: {}",
        palette.paint("35", name),
        palette.paint("32", &err.line.to_string()),
        palette.paint("32", &err.column.to_string()),
        palette.paint("1;31", &err.kind.to_string()),
        err.offset,
        hex::spaced(&err.bytes)
    )
}

fn write_json(out: &mut impl Write, name: &str, outcome: &Outcome) -> io::Result<()> {
    let record = match outcome {
        Outcome::Checked {
            bytes,
            errors,
            counts,
        } => {
            let list: Vec<_> = errors
                .iter()
                .map(|e| {
                    json!({
                        "offset": e.offset,
                        "len": e.len,
                        "kind": e.kind.snake_name(),
                        "line": e.line,
                        "column": e.column,
                    })
                })
                .collect();
            json!({
                "path": name,
                "valid": counts.iter().all(|&c| c == 0),
                "bytes": bytes,
                "errors": list,
            })
        }
        Outcome::SkippedBinary => json!({ "path": name, "skipped": "binary" }),
        Outcome::Unreadable(message) => json!({ "path": name, "error": message }),
    };
    writeln!(out, "{record}")
}
