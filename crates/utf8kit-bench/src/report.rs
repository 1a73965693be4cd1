//! Tables: the per-operation throughput table, its ratio columns, and the summaries,
//! rendered as aligned text or as Markdown (for BENCHMARKS.md).

use crate::harness::{geomean, median, paired_ratio, relative_iqr};
use crate::inputs::Size;
use crate::ops::{Denominator, Operation, Ratio, Role, RowKey, Shape, Summary};

/// Measurements of one row: every contender's samples (`None` if it did not run there).
pub struct RowResult {
    /// Which input and size.
    pub key: RowKey,
    /// GB/s samples per contender, indexed like `Operation::contenders`, rounds aligned.
    pub samples: Vec<Option<Vec<f64>>>,
}

/// A rendered-to-be table.
pub struct Table {
    /// Heading.
    pub title: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows of cells, as many as headers.
    pub rows: Vec<Vec<String>>,
    /// Lines printed under the table.
    pub notes: Vec<String>,
}

impl Table {
    /// Aligned text: first column left-aligned, the others right-aligned.
    pub fn plain(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|c| {
                std::iter::once(&self.headers[c])
                    .chain(self.rows.iter().map(|r| &r[c]))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (c, (cell, w)) in cells.iter().zip(&widths).enumerate() {
                let pad = " ".repeat(w - cell.chars().count());
                if c == 0 {
                    s.push_str(cell);
                    s.push_str(&pad);
                } else {
                    s.push_str("  ");
                    s.push_str(&pad);
                    s.push_str(cell);
                }
            }
            s.trim_end().to_string() + "\n"
        };
        let mut out = format!("{}\n", self.title);
        out.push_str(&line(&self.headers));
        out.push_str(
            &"-".repeat(widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)),
        );
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
        }
        for n in &self.notes {
            out.push_str(&format!("  {n}\n"));
        }
        out
    }

    /// A Markdown heading, a pipe table with numeric columns right-aligned, and the notes
    /// as a list.
    pub fn markdown(&self) -> String {
        let row = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let mut out = format!("### {}\n\n", self.title);
        out.push_str(&row(&self.headers));
        let align: Vec<String> = (0..self.headers.len())
            .map(|c| if c == 0 { ":--" } else { "--:" }.to_string())
            .collect();
        out.push_str(&row(&align));
        for r in &self.rows {
            out.push_str(&row(r));
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                out.push_str(&format!("- {n}\n"));
            }
        }
        out
    }
}

/// GB/s with three significant digits.
fn gbs(x: f64) -> String {
    if !x.is_finite() {
        "–".into()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// A ratio with two decimals, or a dash when undefined.
fn ratio_cell(x: Option<f64>) -> String {
    match x {
        Some(x) if x.is_finite() => format!("{x:.2}"),
        _ => "–".into(),
    }
}

/// Index of the fastest peer on a row, by median.
fn best_peer(op: &Operation, row: &RowResult) -> Option<usize> {
    op.contenders
        .iter()
        .enumerate()
        .filter(|(_, c)| c.role == Role::Peer)
        .filter_map(|(i, _)| row.samples[i].as_ref().map(|s| (i, median(s))))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The value of a ratio column on a row, if both sides ran there.
fn ratio_value(op: &Operation, row: &RowResult, ratio: &Ratio) -> Option<f64> {
    let num = row.samples[op.index_of(ratio.numerator)?].as_ref()?;
    let den = match ratio.denominator {
        Denominator::BestPeer => best_peer(op, row)?,
        Denominator::Contender(name) => op.index_of(name)?,
    };
    Some(paired_ratio(num, row.samples[den].as_ref()?))
}

/// The main table of an operation: one row per (input, size), GB/s per contender, the best
/// peer, the ratio columns and the row's noise. Columns that are empty everywhere (a
/// contender filtered out, a ratio without its denominator) are left out.
pub fn operation_table(op: &Operation, rows: &[RowResult], reps: usize) -> Table {
    let ran: Vec<usize> = (0..op.contenders.len())
        .filter(|&i| rows.iter().any(|r| r.samples[i].is_some()))
        .collect();
    let ratios: Vec<&Ratio> = op
        .ratios
        .iter()
        .filter(|r| rows.iter().any(|row| ratio_value(op, row, r).is_some()))
        .collect();
    let show_best = ratios
        .iter()
        .any(|r| matches!(r.denominator, Denominator::BestPeer));

    let mut headers = vec!["input".to_string(), "size".to_string()];
    headers.extend(ran.iter().map(|&i| op.contenders[i].label.clone()));
    if show_best {
        headers.push("best peer".into());
    }
    headers.extend(ratios.iter().map(|r| r.label.to_string()));
    headers.push("noise".into());

    let table_rows = rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.key.input.clone(), row.key.size.to_string()];
            cells.extend(ran.iter().map(|&i| {
                row.samples[i]
                    .as_deref()
                    .map_or("–".into(), |s| gbs(median(s)))
            }));
            if show_best {
                cells.push(
                    best_peer(op, row).map_or("–".into(), |i| op.contenders[i].label.clone()),
                );
            }
            cells.extend(ratios.iter().map(|r| ratio_cell(ratio_value(op, row, r))));
            let noise = row
                .samples
                .iter()
                .flatten()
                .map(|s| relative_iqr(s))
                .fold(0.0, f64::max);
            cells.push(format!("{:.0}%", noise * 100.0));
            cells
        })
        .collect();

    let mut notes = vec![format!(
        "GB/s = 10^9 bytes/s, median of {reps} interleaved rounds; sizes in KiB/MiB; \
         noise = largest interquartile range ÷ median among the row's contenders"
    )];
    notes.extend(op.notes.iter().cloned());
    notes.push(
        "ratios are medians of per-round ratios (both sides measured in the same round)".into(),
    );
    Table {
        title: format!("{}: throughput (GB/s) and ratios", op.name),
        headers,
        rows: table_rows,
        notes,
    }
}

/// One summary table, or `None` when no selected row has the ratio.
pub fn summary_table(op: &Operation, rows: &[RowResult], summary: &Summary) -> Option<Table> {
    let ratio = op.ratios.iter().find(|r| r.label == summary.ratio)?;
    let values: Vec<(&RowKey, f64)> = rows
        .iter()
        .filter(|r| (summary.rows)(&r.key))
        .filter_map(|r| ratio_value(op, r, ratio).map(|v| (&r.key, v)))
        .collect();
    if values.is_empty() {
        return None;
    }
    let mut sizes: Vec<Size> = values.iter().map(|(k, _)| k.size).collect();
    sizes.sort();
    sizes.dedup();
    let title = format!("{}: {}", op.name, summary.title);
    let table = match summary.shape {
        Shape::GeomeanBySize => {
            let headers = ["size", "n", "geomean", "min", "max"]
                .map(String::from)
                .to_vec();
            let rows = sizes
                .iter()
                .map(|&size| {
                    let v: Vec<f64> = values
                        .iter()
                        .filter(|(k, _)| k.size == size)
                        .map(|(_, v)| *v)
                        .collect();
                    let (lo, hi) = v
                        .iter()
                        .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
                    vec![
                        size.to_string(),
                        v.len().to_string(),
                        ratio_cell(Some(geomean(&v))),
                        ratio_cell(Some(lo)),
                        ratio_cell(Some(hi)),
                    ]
                })
                .collect();
            Table {
                title,
                headers,
                rows,
                notes: Vec::new(),
            }
        }
        Shape::Matrix => {
            let mut inputs: Vec<&str> = Vec::new();
            for (k, _) in &values {
                if !inputs.contains(&k.input.as_str()) {
                    inputs.push(&k.input);
                }
            }
            let mut headers = vec!["input".to_string()];
            headers.extend(sizes.iter().map(Size::to_string));
            let rows = inputs
                .iter()
                .map(|&input| {
                    let mut cells = vec![input.to_string()];
                    cells.extend(sizes.iter().map(|&size| {
                        ratio_cell(
                            values
                                .iter()
                                .find(|(k, _)| k.input == input && k.size == size)
                                .map(|(_, v)| *v),
                        )
                    }));
                    cells
                })
                .collect();
            Table {
                title,
                headers,
                rows,
                notes: Vec::new(),
            }
        }
    };
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_render_aligned_and_as_markdown() {
        let t = Table {
            title: "t".into(),
            headers: vec!["input".into(), "÷x".into()],
            rows: vec![vec!["Arabic".into(), "1.50".into()]],
            notes: vec!["n".into()],
        };
        assert_eq!(
            t.plain(),
            "t\ninput     ÷x\n------------\nArabic  1.50\n  n\n"
        );
        assert_eq!(
            t.markdown(),
            "### t\n\n| input | ÷x |\n| :-- | --: |\n| Arabic | 1.50 |\n\n- n\n"
        );
    }

    #[test]
    fn number_formats() {
        assert_eq!(gbs(123.4), "123");
        assert_eq!(gbs(12.34), "12.3");
        assert_eq!(gbs(1.234), "1.23");
        assert_eq!(ratio_cell(None), "–");
        assert_eq!(ratio_cell(Some(f64::NAN)), "–");
    }
}
