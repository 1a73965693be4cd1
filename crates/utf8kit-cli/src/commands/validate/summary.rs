//! The `--summary` totals.

use std::io::{self, Write};
use std::time::Duration;

use utf8kit::Utf8ErrorKind;

/// Totals over every input.
#[derive(Debug, Default)]
pub struct Summary {
    /// Inputs checked (readable, not skipped).
    pub files: u64,
    /// Bytes checked.
    pub bytes: u64,
    /// Inputs with at least one error.
    pub invalid_files: u64,
    /// Errors by kind, in [`Utf8ErrorKind::ALL`] order.
    pub errors: [u64; 6],
    /// Inputs that could not be read.
    pub unreadable: u64,
    /// Inputs skipped as binary.
    pub skipped_binary: u64,
}

impl Summary {
    /// Writes the summary as text.
    pub fn write_text(&self, out: &mut impl Write, elapsed: Duration) -> io::Result<()> {
        let secs = elapsed.as_secs_f64();
        let total: u64 = self.errors.iter().sum();
        writeln!(out, "files checked    {}", self.files)?;
        writeln!(
            out,
            "bytes checked    {} ({})",
            self.bytes,
            human_bytes(self.bytes as f64)
        )?;
        writeln!(out, "invalid files    {}", self.invalid_files)?;
        writeln!(out, "errors           {total}")?;
        for (kind, count) in Utf8ErrorKind::ALL.iter().zip(self.errors) {
            if count > 0 {
                writeln!(out, "  {:<28} {count}", kind.description())?;
            }
        }
        if self.skipped_binary > 0 {
            writeln!(out, "skipped (binary) {}", self.skipped_binary)?;
        }
        if self.unreadable > 0 {
            writeln!(out, "unreadable       {}", self.unreadable)?;
        }
        writeln!(out, "elapsed          {:.3} s", secs)?;
        if secs > 0.0 {
            writeln!(
                out,
                "throughput       {}/s",
                human_bytes(self.bytes as f64 / secs)
            )?;
        }
        Ok(())
    }

    /// The summary as a JSON object (printed as the last JSON line).
    pub fn to_json(&self, elapsed: Duration) -> serde_json::Value {
        let mut by_kind = serde_json::Map::new();
        for (kind, count) in Utf8ErrorKind::ALL.iter().zip(self.errors) {
            by_kind.insert(kind.snake_name().to_owned(), count.into());
        }
        serde_json::json!({
            "summary": {
                "files": self.files,
                "bytes": self.bytes,
                "invalid_files": self.invalid_files,
                "errors": self.errors.iter().sum::<u64>(),
                "errors_by_kind": by_kind,
                "unreadable": self.unreadable,
                "skipped_binary": self.skipped_binary,
                "elapsed_seconds": elapsed.as_secs_f64(),
            }
        })
    }
}

/// `1.50 GiB`, `12.0 KiB`, `512 B`.
pub fn human_bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} B")
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}
