//! The gdb oracle on a small program: the gcc -O0 build walked against
//! itself is judged perfect, and the exact stops and values are the ones
//! the source says; a walk of a build that lies is caught.

use std::path::Path;
use std::process::Command;

use dwarfsmith_fuzz::oracle::{judge, walk, End, Reference, WalkOptions};

const SOURCE: &str = r#"#include <stdio.h>
static int g;
__attribute__((noinline)) static int step(int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += i * 3;
    g = total;
    return total;
}
int main(void)
{
    int a = step(4);
    printf("%d %d\n", a, g);
    return 0;
}
"#;

fn build(dir: &Path, compiler: &str, flags: &[&str], name: &str) -> std::path::PathBuf {
    let source = dir.join("small.c");
    std::fs::write(&source, SOURCE).unwrap();
    let exe = dir.join(name);
    let out = Command::new(compiler)
        .args(flags)
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{compiler}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

#[test]
fn the_oracle_walked_against_itself_is_perfect() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path(), "gcc", &["-O0", "-g"], "o0");
    let options = WalkOptions::new(vec!["step".into(), "main".into()]);
    let oracle = walk(&exe, &options).unwrap();
    assert_eq!(oracle.end, End::Exited);
    let stops: Vec<String> = oracle
        .stops
        .iter()
        .map(|s| {
            let shown: Vec<String> = s
                .shown
                .iter()
                .map(|v| format!("{}={}", v.name, v.value))
                .collect();
            format!("{} {}:{} {}", s.depth, s.function, s.line, shown.join(" "))
        })
        .collect();
    // Line 7 is hit 5 times (the bound), then its breakpoint is disabled.
    assert_eq!(
        stops,
        [
            "1 main:13 a=0",
            "2 step:5 n=4 total=0",
            "2 step:6 i=0 n=4 total=0",
            "2 step:7 i=0 n=4 total=0",
            "2 step:7 i=1 n=4 total=0",
            "2 step:7 i=2 n=4 total=3",
            "2 step:7 i=3 n=4 total=9",
            "2 step:8 n=4 total=18",
            "2 step:9 n=4 total=18",
            "2 step:10 n=4 total=18",
            "1 main:14 a=18",
            "1 main:15 a=18",
            "1 main:16 a=18",
        ]
    );
    let figures = judge(&Reference::new(&oracle), &oracle);
    assert!(figures.wrong.is_empty(), "{:?}", figures.wrong);
    assert!(figures.missing.is_empty());
    assert_eq!((figures.available, figures.expected), (27, 27));
    assert_eq!(figures.stepping_order(), 1.0);
    assert_eq!(figures.lines.len(), 10);
}

#[test]
fn a_build_that_lies_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let oracle = build(dir.path(), "gcc", &["-O0", "-g"], "o0");
    let options = WalkOptions::new(vec!["step".into(), "main".into()]);
    let reference = Reference::new(&walk(&oracle, &options).unwrap());
    // The same walk with `total` one step ahead at line 6 (held there: 0,
    // and 0 at the next stop), `a` and `i` never listed.
    let text = "STOP\t1\tmain\t13\n\
                STOP\t2\tstep\t6\nVAR\ttotal\tlocal\t5\t3\nVAR\tn\targ\t3\t4\n\
                STOP\t2\tstep\t7\nVAR\ttotal\tlocal\t5\t0\n";
    let figures = judge(&reference, &dwarfsmith_fuzz::oracle::walk::parse(text));
    let wrong: Vec<String> = figures.wrong.iter().map(|w| w.to_string()).collect();
    assert_eq!(wrong, ["step:6 total = 3 (the oracle holds {0})"]);
    assert_eq!(
        figures.missing,
        [
            ("main".to_string(), "a".to_string()),
            ("step".to_string(), "i".to_string())
        ]
    );
    assert_eq!((figures.available, figures.expected), (3, 7));
    assert_eq!((figures.steps_agreeing, figures.step_pairs), (1, 1));
}
