//! Throughput of single AVX-512 instructions, in cycles, on the machine at
//! hand: what the kernels' per-block costs are counted in (see
//! BENCHMARKS.md, "stop 29"). Each row runs a loop of independent copies of
//! one instruction (or a mix of two) and divides its time by that of a
//! chain of dependent `imul`s (3 cycles each), so the figures are cycles at
//! whatever clock the core runs. An instruction that takes 1 cycle alone
//! and 2 cycles in a pair with `vpcompressb` (itself 2 cycles) shares its
//! port.
//!
//! `cargo run --release -p utf8kit-bench --bin port_probe`
//!
//! x86-64 with AVX-512 BW/VBMI/VBMI2 and GFNI only; elsewhere it says so
//! and exits.

#[cfg(target_arch = "x86_64")]
mod probe {
    use std::arch::asm;
    use std::time::Instant;

    const ITERATIONS: u64 = 20_000_000;

    /// The fastest of seven runs of `ITERATIONS` iterations of `$body`,
    /// in nanoseconds per iteration. `k1`/`k2` hold all ones and `zmm0` is
    /// all ones; the body may write `zmm1..=zmm5`, `zmm7`, `k3..=k6` and
    /// read `zmm6`, `rax`, `r8..=r10`.
    macro_rules! best_of_seven {
        ($body:literal) => {{
            let mut best = f64::MAX;
            for _ in 0..7 {
                let start = Instant::now();
                // SAFETY: `main` checked the CPU for every feature the
                // bodies use; the asm touches only the registers it
                // declares clobbered and no memory.
                unsafe {
                    asm!(
                        "vpternlogd zmm0, zmm0, zmm0, 0xff",
                        "mov {scratch}, -1",
                        "kmovq k1, {scratch}",
                        "kmovq k2, {scratch}",
                        "2:",
                        $body,
                        "dec {count}",
                        "jnz 2b",
                        count = inout(reg) ITERATIONS => _,
                        scratch = out(reg) _,
                        out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                        out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                        out("k1") _, out("k2") _, out("k3") _, out("k4") _,
                        out("k5") _, out("k6") _,
                        out("rax") _, out("r8") _, out("r9") _, out("r10") _,
                        options(nostack, nomem),
                    );
                }
                let ns = start.elapsed().as_nanos() as f64 / ITERATIONS as f64;
                best = best.min(ns);
            }
            best
        }};
    }

    pub fn run() {
        let cycle = best_of_seven!(
            "imul rax, rax\nimul rax, rax\nimul rax, rax\nimul rax, rax\n\
             imul rax, rax\nimul rax, rax\nimul rax, rax\nimul rax, rax"
        ) / 24.0;
        println!(
            "clock: {:.2} GHz (8 dependent imul = 24 cycles)",
            1.0 / cycle
        );
        // (name, copies per iteration, nanoseconds per iteration)
        let rows = [
            (
                "vpcompressb zmm{k}{z}",
                4,
                best_of_seven!(
                    "vpcompressb zmm1{{k1}}{{z}}, zmm0\nvpcompressb zmm2{{k1}}{{z}}, zmm0\n\
                 vpcompressb zmm3{{k1}}{{z}}, zmm0\nvpcompressb zmm4{{k1}}{{z}}, zmm0"
                ),
            ),
            (
                "vpexpandb zmm{k}{z}",
                4,
                best_of_seven!(
                    "vpexpandb zmm1{{k1}}{{z}}, zmm0\nvpexpandb zmm2{{k1}}{{z}}, zmm0\n\
                 vpexpandb zmm3{{k1}}{{z}}, zmm0\nvpexpandb zmm4{{k1}}{{z}}, zmm0"
                ),
            ),
            (
                "vpermt2b",
                4,
                best_of_seven!(
                    "vpermt2b zmm1, zmm6, zmm0\nvpermt2b zmm2, zmm6, zmm0\n\
                 vpermt2b zmm3, zmm6, zmm0\nvpermt2b zmm4, zmm6, zmm0"
                ),
            ),
            (
                "vpermb",
                4,
                best_of_seven!(
                    "vpermb zmm1, zmm6, zmm0\nvpermb zmm2, zmm6, zmm0\n\
                 vpermb zmm3, zmm6, zmm0\nvpermb zmm4, zmm6, zmm0"
                ),
            ),
            (
                "vpermq (vector index)",
                4,
                best_of_seven!(
                    "vpermq zmm1, zmm6, zmm0\nvpermq zmm2, zmm6, zmm0\n\
                 vpermq zmm3, zmm6, zmm0\nvpermq zmm4, zmm6, zmm0"
                ),
            ),
            (
                "vpunpcklbw",
                4,
                best_of_seven!(
                    "vpunpcklbw zmm1, zmm0, zmm6\nvpunpcklbw zmm2, zmm0, zmm6\n\
                 vpunpcklbw zmm3, zmm0, zmm6\nvpunpcklbw zmm4, zmm0, zmm6"
                ),
            ),
            (
                "vpmovzxbw",
                4,
                best_of_seven!(
                    "vpmovzxbw zmm1, ymm0\nvpmovzxbw zmm2, ymm0\n\
                 vpmovzxbw zmm3, ymm0\nvpmovzxbw zmm4, ymm0"
                ),
            ),
            (
                "kmovq k, r64",
                4,
                best_of_seven!("kmovq k3, rax\nkmovq k4, r8\nkmovq k5, r9\nkmovq k6, r10"),
            ),
            (
                "kmovq r64, k",
                4,
                best_of_seven!("kmovq rax, k1\nkmovq r8, k1\nkmovq r9, k2\nkmovq r10, k2"),
            ),
            (
                "korq",
                4,
                best_of_seven!(
                    "korq k3, k1, k2\nkorq k4, k1, k2\nkorq k5, k1, k2\nkorq k6, k1, k2"
                ),
            ),
            (
                "vpmovb2m",
                4,
                best_of_seven!(
                    "vpmovb2m k3, zmm0\nvpmovb2m k4, zmm0\nvpmovb2m k5, zmm0\nvpmovb2m k6, zmm0"
                ),
            ),
            (
                "vpcmpub into k",
                4,
                best_of_seven!(
                    "vpcmpub k3, zmm0, zmm6, 1\nvpcmpub k4, zmm0, zmm6, 1\n\
                 vpcmpub k5, zmm0, zmm6, 1\nvpcmpub k6, zmm0, zmm6, 1"
                ),
            ),
            (
                "vpsrlw",
                4,
                best_of_seven!(
                    "vpsrlw zmm1, zmm0, 1\nvpsrlw zmm2, zmm0, 1\n\
                 vpsrlw zmm3, zmm0, 1\nvpsrlw zmm4, zmm0, 1"
                ),
            ),
            (
                "gf2p8affineqb",
                4,
                best_of_seven!(
                    "vgf2p8affineqb zmm1, zmm0, zmm6, 0x42\nvgf2p8affineqb zmm2, zmm0, zmm6, 0x42\n\
                 vgf2p8affineqb zmm3, zmm0, zmm6, 0x42\nvgf2p8affineqb zmm4, zmm0, zmm6, 0x42"
                ),
            ),
            (
                "vpaddusb",
                4,
                best_of_seven!(
                    "vpaddusb zmm1, zmm0, zmm6\nvpaddusb zmm2, zmm0, zmm6\n\
                 vpaddusb zmm3, zmm0, zmm6\nvpaddusb zmm4, zmm0, zmm6"
                ),
            ),
            (
                "vpminub",
                4,
                best_of_seven!(
                    "vpminub zmm1, zmm0, zmm6\nvpminub zmm2, zmm0, zmm6\n\
                 vpminub zmm3, zmm0, zmm6\nvpminub zmm4, zmm0, zmm6"
                ),
            ),
            (
                "vpternlogd",
                4,
                best_of_seven!(
                    "vpternlogd zmm1, zmm0, zmm6, 0x4c\nvpternlogd zmm2, zmm0, zmm6, 0x4c\n\
                 vpternlogd zmm3, zmm0, zmm6, 0x4c\nvpternlogd zmm4, zmm0, zmm6, 0x4c"
                ),
            ),
            (
                "vpaddb",
                4,
                best_of_seven!(
                    "vpaddb zmm1, zmm0, zmm6\nvpaddb zmm2, zmm0, zmm6\n\
                 vpaddb zmm3, zmm0, zmm6\nvpaddb zmm4, zmm0, zmm6"
                ),
            ),
            (
                "2 vpcompressb + 2 vpermt2b",
                2,
                best_of_seven!(
                    "vpcompressb zmm1{{k1}}{{z}}, zmm0\nvpcompressb zmm2{{k1}}{{z}}, zmm0\n\
                 vpermt2b zmm3, zmm6, zmm0\nvpermt2b zmm4, zmm6, zmm0"
                ),
            ),
            (
                "2 vpcompressb + 2 kmovq k, r64",
                2,
                best_of_seven!(
                    "vpcompressb zmm1{{k1}}{{z}}, zmm0\nvpcompressb zmm2{{k1}}{{z}}, zmm0\n\
                 kmovq k3, rax\nkmovq k4, r8"
                ),
            ),
            (
                "2 vpcompressb + 2 vpmovb2m",
                2,
                best_of_seven!(
                    "vpcompressb zmm1{{k1}}{{z}}, zmm0\nvpcompressb zmm2{{k1}}{{z}}, zmm0\n\
                 vpmovb2m k3, zmm0\nvpmovb2m k4, zmm0"
                ),
            ),
            (
                "2 vpcompressb + 4 vpternlogd",
                2,
                best_of_seven!(
                    "vpcompressb zmm1{{k1}}{{z}}, zmm0\nvpcompressb zmm2{{k1}}{{z}}, zmm0\n\
                 vpternlogd zmm3, zmm0, zmm6, 0x4c\nvpternlogd zmm4, zmm0, zmm6, 0x4c\n\
                 vpternlogd zmm5, zmm0, zmm6, 0x4c\nvpternlogd zmm7, zmm0, zmm6, 0x4c"
                ),
            ),
            (
                "2 vpmovb2m + 2 vpaddusb",
                2,
                best_of_seven!(
                    "vpmovb2m k3, zmm0\nvpmovb2m k4, zmm0\n\
                 vpaddusb zmm3, zmm0, zmm6\nvpaddusb zmm4, zmm0, zmm6"
                ),
            ),
        ];
        println!(
            "{:32} {:>10} {:>9}",
            "instruction(s)", "cycles/it", "per copy"
        );
        for (name, copies, ns) in rows {
            let cycles = ns / cycle;
            println!("{name:32} {cycles:10.2} {:9.2}", cycles / copies as f64);
        }
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    {
        let features = [
            std::is_x86_feature_detected!("avx512f"),
            std::is_x86_feature_detected!("avx512bw"),
            std::is_x86_feature_detected!("avx512vbmi"),
            std::is_x86_feature_detected!("avx512vbmi2"),
            std::is_x86_feature_detected!("gfni"),
        ];
        if features.iter().all(|&f| f) {
            probe::run();
            return;
        }
    }
    eprintln!("port_probe: needs x86-64 with AVX-512 F/BW/VBMI/VBMI2 and GFNI");
    std::process::exit(2);
}
