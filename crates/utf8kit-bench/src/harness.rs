//! Timing: calibration, interleaved repetitions, medians.
//!
//! The machine is shared and its speed swings by 20–30 % from one second to the next.
//! Timing each contender in its own block would let a slow second land on one contender
//! only. Instead every repetition takes one sample of every contender, round-robin, with
//! the starting contender rotating, so a disturbance lasting a round hits all alike.
//! Reported figures are medians over repetitions, and ratios are medians of per-round
//! ratios (see [`paired_ratio`]).

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::inputs::Data;
use crate::ops::Run;

/// How long and how often to measure.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Samples per contender (the median is over these).
    pub reps: usize,
    /// Minimum duration of one sample; calibration picks the iteration count to reach it.
    pub target: Duration,
}

/// Calls `run` once on `data` (for `--check`).
pub fn call_once(run: &mut Run, data: &Data) -> usize {
    match (run, data) {
        (Run::Utf8(f), Data::Utf8(d))
        | (Run::Latin1(f), Data::Latin1(d))
        | (Run::Utf16Be(f), Data::Utf16Be(d)) => f(d),
        (Run::Utf16(f), Data::Utf16(d)) => f(d),
        (Run::Utf32(f), Data::Utf32(d)) => f(d),
        _ => unreachable!("Operation::assert_consistent rejects contenders of the wrong encoding"),
    }
}

/// Time of `iters` back-to-back calls, on the texts of `data` in turn (usually one).
fn time(run: &mut Run, data: &[Data], iters: u64) -> Duration {
    /// Every text of the row through `view` (each has the row's encoding).
    fn texts<'a, T: ?Sized>(data: &'a [Data], view: fn(&'a Data) -> Option<&'a T>) -> Vec<&'a T> {
        data.iter()
            .map(|d| view(d).expect("every text of a row has the row's encoding"))
            .collect()
    }
    match (run, &data[0]) {
        (Run::Utf8(f), Data::Utf8(_))
        | (Run::Latin1(f), Data::Latin1(_))
        | (Run::Utf16Be(f), Data::Utf16Be(_)) => {
            time_loop(f.as_mut(), &texts(data, Data::bytes), iters)
        }
        (Run::Utf16(f), Data::Utf16(_)) => {
            time_loop(f.as_mut(), &texts(data, Data::utf16_units), iters)
        }
        (Run::Utf32(f), Data::Utf32(_)) => {
            time_loop(f.as_mut(), &texts(data, Data::utf32_values), iters)
        }
        _ => unreachable!("Operation::assert_consistent rejects contenders of the wrong encoding"),
    }
}

/// The timed loop, one instance per element type. `black_box` on the input keeps the call
/// from being hoisted out of the loop; on the result, from being discarded. With several
/// texts, each call takes the next (a fresh family).
fn time_loop<T>(f: &mut dyn FnMut(&[T]) -> usize, texts: &[&[T]], iters: u64) -> Duration {
    // One text: the loop the plain rows have always been timed with, no turn to take.
    if let [text] = texts {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f(black_box(text)));
        }
        return start.elapsed();
    }
    let start = Instant::now();
    let mut k = 0;
    for _ in 0..iters {
        black_box(f(black_box(texts[k])));
        k += 1;
        if k == texts.len() {
            k = 0;
        }
    }
    start.elapsed()
}

/// Smallest iteration count whose sample lasts at least `target`. The first probe (one
/// call) also warms caches and lets buffer-owning contenders allocate.
fn calibrate(run: &mut Run, data: &[Data], target: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = time(run, data, iters);
        if t >= target {
            return iters;
        }
        // Aim 20 % past the target so the next probe usually suffices; cap the jump so a
        // probe perturbed by a timer tick cannot overshoot wildly.
        let scale = if t.is_zero() {
            100.0
        } else {
            (target.as_secs_f64() / t.as_secs_f64()).min(100.0)
        };
        iters = ((iters as f64 * scale * 1.2).ceil() as u64).max(iters + 1);
    }
}

/// Throughput samples in GB/s (10⁹ bytes per second), `[contender][repetition]`, with
/// repetitions in the same order for every contender so rounds can be paired. `data` holds
/// the row's texts, of one size, taken in turn (one but for a fresh family).
pub fn measure(runs: &mut [&mut Run], data: &[Data], cfg: &Config) -> Vec<Vec<f64>> {
    // The texts of a fresh family differ by a character cut at the end, at most.
    let bytes = data.iter().map(Data::byte_len).sum::<usize>() as f64 / data.len() as f64;
    let iters: Vec<u64> = runs
        .iter_mut()
        .map(|r| calibrate(r, data, cfg.target))
        .collect();
    let n = runs.len();
    let mut samples = vec![Vec::with_capacity(cfg.reps); n];
    for rep in 0..cfg.reps {
        for k in 0..n {
            let i = (rep + k) % n;
            let t = time(runs[i], data, iters[i]).as_secs_f64();
            samples[i].push(bytes * iters[i] as f64 / t.max(1e-12) / 1e9);
        }
    }
    samples
}

/// Median (mean of the middle two for an even count); NaN for no samples.
pub fn median(xs: &[f64]) -> f64 {
    quantile(xs, 0.5)
}

/// Linear-interpolated quantile `q` in `0..=1`; NaN for no samples.
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Interquartile range relative to the median: the noise of one contender on one row.
pub fn relative_iqr(xs: &[f64]) -> f64 {
    (quantile(xs, 0.75) - quantile(xs, 0.25)) / median(xs)
}

/// Median over rounds of `a[r] / b[r]`. Both samples of a round were taken moments apart,
/// so a slow phase of the machine cancels out of each quotient.
pub fn paired_ratio(a: &[f64], b: &[f64]) -> f64 {
    let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    median(&ratios)
}

/// Geometric mean; NaN for no values.
pub fn geomean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.25), 2.0);
        assert_eq!(paired_ratio(&[2.0, 9.0, 4.0], &[1.0, 3.0, 4.0]), 2.0);
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn measure_returns_one_sample_per_rep() {
        let mut a = Run::Utf8(Box::new(|b: &[u8]| b.len()));
        let mut b = Run::Utf8(Box::new(|b: &[u8]| {
            b.iter().filter(|&&x| x == b'a').count()
        }));
        let data = Data::Utf8(vec![b'a'; 4096].into());
        let cfg = Config {
            reps: 3,
            target: Duration::from_micros(200),
        };
        let s = measure(&mut [&mut a, &mut b], &[data], &cfg);
        assert_eq!(s.len(), 2);
        assert!(
            s.iter()
                .all(|v| v.len() == 3 && v.iter().all(|x| x.is_finite() && *x > 0.0))
        );
    }

    #[test]
    fn fresh_texts_are_taken_in_turn() {
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = seen.clone();
        let mut run = Run::Utf8(Box::new(move |b: &[u8]| {
            log.borrow_mut().push(b[0]);
            1
        }));
        let texts: Vec<Data> = (0..3u8).map(|k| Data::Utf8(vec![k; 64].into())).collect();
        let _ = time(&mut run, &texts, 7);
        assert_eq!(*seen.borrow(), [0, 1, 2, 0, 1, 2, 0]);
    }
}
