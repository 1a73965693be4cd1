//! In-memory validation throughput of the files the CLI benchmark uses:
//! loads every file under the given paths into memory, then times
//! `utf8kit::validate` over all of them (median of several rounds). The CLI's
//! `validate --summary` throughput on the same paths is compared with this.
//!
//! `cargo run --release -p utf8kit-bench --bin in_memory -- PATH...`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use std::{env, fs, hint, process};

const ROUNDS: usize = 7;

fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            let mut entries: Vec<PathBuf> = fs::read_dir(path)
                .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            entries.sort();
            for entry in entries {
                collect(&entry, out);
            }
        }
        Ok(m) if m.is_file() => out.push(path.to_path_buf()),
        _ => eprintln!("in_memory: skipping {}", path.display()),
    }
}

fn main() {
    let paths: Vec<PathBuf> = env::args_os().skip(1).map(PathBuf::from).collect();
    if paths.is_empty() {
        eprintln!("usage: in_memory PATH...");
        process::exit(2);
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    let buffers: Vec<Vec<u8>> = files.iter().filter_map(|f| fs::read(f).ok()).collect();
    let bytes: usize = buffers.iter().map(Vec::len).sum();
    let mut times: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let start = Instant::now();
            let mut invalid = 0usize;
            for b in &buffers {
                invalid += usize::from(utf8kit::validate(hint::black_box(b)).is_err());
            }
            hint::black_box(invalid);
            start.elapsed()
        })
        .collect();
    times.sort();
    let median = times[ROUNDS / 2];
    println!(
        "{} files, {} bytes: utf8kit::validate in memory {:.3} s, {:.2} GB/s (median of {ROUNDS})",
        buffers.len(),
        bytes,
        median.as_secs_f64(),
        bytes as f64 / median.as_secs_f64() / 1e9
    );
}
