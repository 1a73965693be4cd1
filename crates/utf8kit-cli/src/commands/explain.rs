//! `utf8kit explain`: the DFA's view of a byte sequence, then plain words.

use std::io::{self, Write};

use utf8kit::Utf8ErrorKind;
use utf8kit::dfa::{self, TraceEvent};

use crate::Status;
use crate::args::ExplainArgs;
use crate::errors::{self, Located};
use crate::hex;

/// Prints the trace table and one sentence per error; see [`ExplainArgs`].
pub fn run(args: &ExplainArgs, out: &mut impl Write) -> io::Result<Status> {
    let bytes = match source_bytes(args) {
        Ok(bytes) => bytes,
        Err(message) => {
            eprintln!("utf8kit explain: {message}");
            return Ok(Status::Trouble);
        }
    };
    if bytes.is_empty() {
        writeln!(out, "(no bytes: the empty input is valid UTF-8)")?;
        return Ok(Status::Ok);
    }
    write_table(out, &bytes, args.limit)?;
    writeln!(out)?;
    let found = errors::find(&bytes, None);
    if found.is_empty() {
        let chars = String::from_utf8_lossy(&bytes).chars().count();
        writeln!(
            out,
            "valid UTF-8: {} bytes, {chars} characters",
            bytes.len()
        )?;
        return Ok(Status::Ok);
    }
    for err in &found {
        writeln!(out, "{}", sentence(err, &bytes))?;
    }
    Ok(Status::Invalid)
}

fn source_bytes(args: &ExplainArgs) -> Result<Vec<u8>, String> {
    if let Some(hex_text) = &args.hex {
        return hex::parse(hex_text).map_err(|e| format!("--hex: {e}"));
    }
    if let Some(path) = &args.file {
        return std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    }
    match &args.text {
        Some(text) => Ok(os_bytes(text)),
        None => Err("give a STRING, --hex BYTES or --file PATH".to_owned()),
    }
}

/// The bytes the shell passed, even when they are not UTF-8.
#[cfg(unix)]
fn os_bytes(text: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    text.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(text: &std::ffi::OsStr) -> Vec<u8> {
    text.to_string_lossy().into_owned().into_bytes()
}

fn write_table(out: &mut impl Write, bytes: &[u8], limit: usize) -> io::Result<()> {
    writeln!(
        out,
        "{:>6}  {:<4}  {:<8}  {:>5}  {:<10}  {:<8}  event",
        "offset", "byte", "binary", "class", "state", "codep"
    )?;
    for (shown, step) in dfa::trace(bytes).enumerate() {
        if shown == limit {
            writeln!(
                out,
                "   ... (trace cut at {limit} steps; --limit N shows more)"
            )?;
            break;
        }
        let mut event = match step.event {
            TraceEvent::Accepted(c) => format!("accept U+{:04X} {}", c as u32, printable(c)),
            TraceEvent::NeedMore => "need more".to_owned(),
            TraceEvent::Rejected(seq) => format!("REJECT ({})", seq.kind),
        };
        if step.reexamined {
            // The byte that broke a sequence is looked at again as a start
            // (maximal-subpart recovery, as String::from_utf8_lossy does).
            event = format!("re-examined: {event}");
        }
        writeln!(
            out,
            "{:>6}  {:<4}  {:08b}  {:>5}  {:<10}  {:<8}  {event}",
            step.offset,
            format!("{:02X}", step.byte),
            step.byte,
            step.class,
            format!("{:>3} -> {}", step.state_before, step.state_after),
            format!("{:#X}", step.codep),
        )?;
    }
    Ok(())
}

/// The character itself when it prints as itself, else a name for it.
fn printable(c: char) -> String {
    if c.is_control() {
        format!("(control {})", c.escape_default())
    } else if c == ' ' {
        "(space)".to_owned()
    } else {
        format!("'{c}'")
    }
}

/// A plain sentence saying what is wrong with one invalid sequence.
pub fn sentence(err: &Located, bytes: &[u8]) -> String {
    let seq = &err.bytes;
    let offset = usize::try_from(err.offset).unwrap_or(usize::MAX);
    let lead = seq.first().copied().unwrap_or(0);
    let next = seq
        .get(1)
        .copied()
        .or_else(|| bytes.get(offset.saturating_add(1)).copied());
    let at = format!("byte 0x{lead:02X} at offset {}", err.offset);
    match err.kind {
        Utf8ErrorKind::Incomplete => {
            let need = match lead {
                0xC2..=0xDF => 2,
                0xE0..=0xEF => 3,
                _ => 4,
            };
            let have = seq.len();
            match err.len {
                None => format!(
                    "{at} starts a {need}-byte sequence, but the input ends after {have} of its bytes"
                ),
                Some(_) => {
                    let breaker = bytes.get(offset.saturating_add(have)).copied().unwrap_or(0);
                    format!(
                        "{at} starts a {need}-byte sequence, but byte 0x{breaker:02X} at offset {} \
                         cannot continue it after {have} byte{}",
                        err.offset + have as u64,
                        if have == 1 { "" } else { "s" }
                    )
                }
            }
        }
        Utf8ErrorKind::UnexpectedContinuation => {
            format!("{at} is a continuation byte (10xxxxxx) where a character must start")
        }
        Utf8ErrorKind::Overlong => match lead {
            0xC0 | 0xC1 => format!(
                "{at} starts an overlong encoding: a 2-byte form with lead C0 or C1 could only \
                 hold U+0000..U+007F, which must be written in 1 byte"
            ),
            _ => format!(
                "{at} starts an overlong encoding: followed by 0x{:02X} it would hold a value that \
                 has a shorter form",
                next.unwrap_or(0)
            ),
        },
        Utf8ErrorKind::Surrogate => format!(
            "{at} followed by 0x{:02X} starts an encoded UTF-16 surrogate (U+D800..U+DFFF), \
             which UTF-8 forbids (CESU-8 and Modified UTF-8 use them)",
            next.unwrap_or(0)
        ),
        Utf8ErrorKind::OutOfRange => match lead {
            0xF4 => format!(
                "{at} followed by 0x{:02X} would encode a value above U+10FFFF, the last code point",
                next.unwrap_or(0)
            ),
            _ => format!("{at} could only start a value above U+10FFFF, the last code point"),
        },
        _ => format!(
            "{at} never appears in UTF-8 (F8..FF were the leads of the obsolete 5- and 6-byte \
             forms, or never used)"
        ),
    }
}
