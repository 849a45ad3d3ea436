//! `dwarfsmith stats` on corrupted files: 200 copies of gcc's and clang-19's
//! -O2 objects of a corpus program with bytes of their `.debug_*` sections
//! overwritten (a fixed splitmix64 sequence). Each run ends with the figures
//! or a `FILE: error: ...` line and exit status 1, never a panic, within
//! the 10 s every input gets.

mod support;

use std::process::Command;

use object::{Object, ObjectSection};

/// splitmix64: a fixed sequence of pseudo-random numbers.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn corrupted_debug_sections_give_figures_or_an_error_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let source = support::fixture("src/inlining.c");
    let mut random = Random(22);
    let mut errors = 0;
    for compiler in ["gcc", "clang-19"] {
        let object = dir.path().join(format!("{compiler}.o"));
        support::stdout_of(
            Command::new(compiler)
                .args(["-O2", "-g", "-c"])
                .arg(&source)
                .arg("-o")
                .arg(&object),
        );
        let bytes = std::fs::read(&object).unwrap();
        let file = object::File::parse(&*bytes).unwrap();
        let sections: Vec<(usize, usize)> = file
            .sections()
            .filter(|s| s.name().is_ok_and(|name| name.starts_with(".debug_")))
            .filter_map(|s| s.file_range())
            .map(|(offset, size)| (offset as usize, size as usize))
            .filter(|&(_, size)| size > 0)
            .collect();
        for index in 0..100 {
            let mut mutant = bytes.clone();
            let (offset, size) = sections[random.below(sections.len())];
            for _ in 0..=random.below(8) {
                mutant[offset + random.below(size)] = random.next() as u8;
            }
            let path = dir.path().join(format!("{compiler}-{index}.o"));
            std::fs::write(&path, &mutant).unwrap();
            for args in [&["stats", "--json"][..], &["stats", "--html", "-"]] {
                let output = support::run(
                    Command::new("timeout")
                        .arg("10")
                        .arg(env!("CARGO_BIN_EXE_dwarfsmith"))
                        .args(args)
                        .arg(&path),
                );
                let stderr = String::from_utf8_lossy(&output.stderr);
                match output.status.code() {
                    Some(0) => {}
                    Some(1) => {
                        errors += 1;
                        assert!(
                            stderr.starts_with(&format!("{}: error: ", path.display())),
                            "{}: {stderr}",
                            path.display()
                        );
                    }
                    other => panic!("{}: {args:?}: status {other:?}: {stderr}", path.display()),
                }
            }
        }
    }
    println!("400 runs on 200 corrupted objects, {errors} ended with an error");
}
