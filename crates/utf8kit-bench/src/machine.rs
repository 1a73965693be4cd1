//! What the figures were measured on: CPU, SIMD features, core count, date.

use std::time::{SystemTime, UNIX_EPOCH};

/// Description lines printed above the tables.
///
pub fn describe() -> Vec<String> {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    vec![
        format!("date: {} (UTC)", today()),
        format!("cpu: {}, {cpus} logical CPUs available", cpu_model()),
        format!("simd: {}", features()),
        format!(
            "utf8kit kernel: {} (available: {})",
            utf8kit::Kernel::detected().name(),
            utf8kit::Kernel::available()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ]
}

/// `model name (family F model M)` from /proc/cpuinfo (virtual machines often report
/// a bare "AMD EPYC"; the family and model still tell the generation: 25/17 is Zen 4).
fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == name)
            .map(|(_, v)| v.trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(name), Some(family), Some(model)) => {
            format!("{name} (family {family} model {model})")
        }
        (Some(name), ..) => name,
        _ => "unknown".into(),
    }
}

/// The x86 features the kernels of utf8kit, simdutf8 and simdutf choose between.
fn features() -> String {
    #[cfg(target_arch = "x86_64")]
    {
        let mut f = Vec::new();
        macro_rules! probe {
            ($($name:tt),*) => {$(
                if std::is_x86_feature_detected!($name) {
                    f.push($name);
                }
            )*};
        }
        probe!(
            "sse4.2",
            "avx2",
            "bmi2",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512vbmi",
            "avx512vbmi2",
            "gfni"
        );
        f.join(" ")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH.to_string()
    }
}

/// Today's date as YYYY-MM-DD in UTC (days-from-civil inverse, no date crate needed).
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
    }
}
