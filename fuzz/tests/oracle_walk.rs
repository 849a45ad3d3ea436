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
    assert_eq!((figures.available, figures.expected), (24, 24));
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
    // and 0 at the next stop), `a` and `i` never listed (`a` is not
    // expected: main stops only on its declaration line).
    let text = "STOP\t1\tmain\t13\tbreak\n\
                STOP\t2\tstep\t6\tbreak\nVAR\ttotal\tlocal\t5\t3\nVAR\tn\targ\t3\t4\n\
                STOP\t2\tstep\t7\tbreak\nVAR\ttotal\tlocal\t5\t0\n";
    let figures = judge(&reference, &dwarfsmith_fuzz::oracle::walk::parse(text));
    let wrong: Vec<String> = figures.wrong.iter().map(|w| w.to_string()).collect();
    assert_eq!(wrong, ["step:6 total@5 = 3 (the oracle holds {0})"]);
    assert_eq!(figures.missing, [("step".to_string(), "i@6".to_string())]);
    assert_eq!((figures.available, figures.expected), (3, 5));
    assert_eq!((figures.steps_agreeing, figures.step_pairs), (1, 1));
}

#[test]
fn the_oracle_walk_stops_on_every_row_of_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build(dir.path(), "gcc", &["-O0", "-g"], "o0");
    let options = WalkOptions {
        every_row: true,
        ..WalkOptions::new(vec!["step".into(), "main".into()])
    };
    let oracle = walk(&exe, &options).unwrap();
    let lines: Vec<String> = oracle
        .stops
        .iter()
        .filter(|s| s.function == "step")
        .map(|s| format!("{}{}", s.line, if s.at_break_address { "" } else { "r" }))
        .collect();
    // The `for` line's increment is a row of its own, after each body.
    assert_eq!(
        lines,
        ["5", "6", "6r", "7", "6r", "7", "6r", "7", "6r", "7", "6r", "8", "9", "10"]
    );
    let reference = Reference::new(&oracle);
    let mut held: Vec<&String> = reference.held("step", 6, "i@6").unwrap().iter().collect();
    held.sort();
    // `i` is 4 only after the last increment, and out of scope at the next
    // stop: the limit of the rule (a build stopping there after the
    // increment would be judged wrong).
    assert_eq!(held, ["0", "1", "2", "3"]);
    // Its steps are the ones of the stops at `break` addresses.
    let plain = walk(&exe, &WalkOptions::new(vec!["step".into(), "main".into()])).unwrap();
    let figures = judge(&reference, &plain);
    assert_eq!(figures.stepping_order(), 1.0);
    assert!(figures.wrong.is_empty());
}
