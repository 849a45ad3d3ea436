//! End to end without the IR: hand-built MIR functions go through
//! `finish_function`, into an `ObjectModel`, through the emit writer, are
//! linked by gcc (PIE) with a C driver and run; the output must be exact.
//! gdb must unwind through the generated frames using the CFI.

mod backend_mir;
mod support;

use dwarfsmith::codegen::frame::FramePointer;
use dwarfsmith::codegen::mir::{DbgOperand, InstKind};
use dwarfsmith::codegen::pipeline::{finish_function, FinishOptions};
use dwarfsmith_emit::model::{DataObject, DataSection, ObjectModel};
use dwarfsmith_emit::write::{write, WriteOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

const DRIVER: &str = r#"
#include <stdio.h>
int add3(int, int, int);
long sum_calls(long);
long sum20(const long *);
int pick(unsigned);
long globals(void);
long div_mix(long, long, long, long, long, long, long, long);
long call8(long);
long pressure_calls(long);
long ext_counter = 40;
long twice(long x) { return 2 * x; }
static long pressure_reference(long n) {
    long v[12], s = 0, r;
    for (int k = 0; k < 12; k++) v[k] = n + k;
    for (long i = 0; i < 3; i++) {
        s += twice(i);
        for (int k = 0; k < 12; k++) v[k] += s;
    }
    r = s;
    for (int k = 0; k < 12; k++) r += v[k];
    return r;
}
int main(void) {
    long p[20];
    for (int k = 0; k < 20; k++) p[k] = k + 1;
    printf("add3 %d %d\n", add3(1, 2, 3), add3(-5, 10, 100));
    printf("sum_calls %ld %ld\n", sum_calls(5), sum_calls(0));
    printf("sum20 %ld\n", sum20(p));
    printf("pick %d %d %d %d %d %d\n", pick(0), pick(1), pick(2), pick(3), pick(4), pick(100));
    printf("globals %ld\n", globals());
    printf("div_mix %ld %ld\n", div_mix(100, 7, 3, 2, 0, 0, 1000, 5), div_mix(-100, 7, 1, 3, 0, 0, 0, 0));
    printf("call8 %ld\n", call8(2));
    printf("pressure_calls %ld %ld\n", pressure_calls(5), pressure_reference(5));
    return 0;
}
"#;

/// Every sample finished and placed in one object, with `local_table`.
/// How every function here is finished: without a frame pointer, so the
/// frames are addressed from rsp and rbp is allocatable.
fn options(function_index: usize) -> FinishOptions {
    FinishOptions {
        function_index,
        frame_pointer: FramePointer::None,
    }
}

fn build_object(dir: &Path, debug: bool) -> PathBuf {
    let mut model = ObjectModel::default();
    for (index, f) in backend_mir::all(debug).into_iter().enumerate() {
        let done = finish_function(f, &options(index)).expect("finishes");
        model.functions.push(done.to_model(true));
    }
    model.data.push(DataObject {
        aliases: Vec::new(),
        comdat: None,
        binding: Default::default(),
        section_name: None,
        name: "local_table".into(),
        global: false,
        section: DataSection::Data,
        align: 8,
        bytes: [5i64, 7, 9].iter().flat_map(|v| v.to_le_bytes()).collect(),
        relocations: vec![],
    });
    let bytes = write(&model, &WriteOptions::default()).expect("writes");
    let path = dir.join(if debug { "samples.g.o" } else { "samples.o" });
    std::fs::write(&path, bytes).unwrap();
    path
}

fn link(dir: &Path, object: &Path) -> PathBuf {
    let driver = dir.join("driver.c");
    std::fs::write(&driver, DRIVER).unwrap();
    let exe = dir.join("samples");
    let out = support::run(
        Command::new("gcc")
            .arg("-g")
            .arg(&driver)
            .arg(object)
            .arg("-o")
            .arg(&exe),
    );
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "gcc warned: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

#[test]
fn samples_link_and_run_with_exact_output() {
    let dir = tempfile::tempdir().unwrap();
    let object = build_object(dir.path(), false);
    let exe = link(dir.path(), &object);
    assert_eq!(
        support::run_program(&exe),
        "add3 6 105\n\
         sum_calls 20 0\n\
         sum20 2870\n\
         pick 10 11 12 13 -1 -1\n\
         globals 47\n\
         div_mix 1033 -8\n\
         call8 1050\n\
         pressure_calls 228 228\n"
    );
}

#[test]
fn gdb_unwinds_through_generated_frames() {
    let dir = tempfile::tempdir().unwrap();
    let object = build_object(dir.path(), true);
    let exe = link(dir.path(), &object);
    let out = support::gdb_batch(&exe, &["break twice", "run", "bt", "finish"]);
    let frames: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| {
            let l = l.split_once(' ').map_or(l, |(_, rest)| rest.trim_start());
            let l = l.split_once(" in ").map_or(l, |(_, rest)| rest);
            l.split_whitespace().next().unwrap_or("")
        })
        .collect();
    assert_eq!(frames[..3], ["twice", "sum_calls", "main"], "{out}");
    // `finish` returns into sum_calls through the CFI of `twice`'s caller.
    assert!(
        out.contains("in sum_calls ()\nValue returned is $1 = 0"),
        "{out}"
    );
}

#[test]
fn gdb_unwinds_to_main_from_every_instruction() {
    let dir = tempfile::tempdir().unwrap();
    let object = build_object(dir.path(), false);
    let exe = link(dir.path(), &object);
    let mut commands = Vec::new();
    let mut stops = 0;
    for f in backend_mir::all(false) {
        let name = f.name.clone();
        let done = finish_function(f, &options(0)).unwrap();
        for &(offset, len) in done.inst_offsets.iter().flatten() {
            if len > 0 {
                commands.push(format!("break *({name}+{offset})"));
                stops += 1;
            }
        }
    }
    commands.push("run".into());
    // Loop bodies stop more than once: leave room for every stop.
    for _ in 0..4 * stops {
        commands.push("bt".into());
        commands.push("continue".into());
    }
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let out = support::gdb_batch(&exe, &refs);
    assert!(out.contains("exited normally"), "{out}");
    // Each backtrace: frames #0.. up to main, never an unknown frame. (At a
    // `ret` gdb unwinds by its own epilogue rule; everywhere else it reads
    // the CFI, so a wrong prologue row fails here.)
    let mut traces = 0;
    let mut previous: Option<&str> = None;
    for line in out.lines() {
        if line.starts_with("#0 ") {
            traces += 1;
        }
        if line.starts_with('#') {
            assert!(!line.contains("?? ()"), "unknown frame: {line}\n{out}");
            previous = Some(line);
        } else if let Some(last) = previous.take() {
            assert!(last.contains(" main ()"), "backtrace ends at {last}\n{out}");
        }
    }
    assert!(
        traces >= stops,
        "{traces} backtraces for {stops} breakpoints\n{out}"
    );
}

#[test]
fn spilled_debug_values_name_the_frame_slot_holding_the_value() {
    // sum20 with debug values: each loaded p[k] (variable 10 + k, value
    // k + 1 in the driver) that was spilled is described by its spill slot.
    // At the debug value's offset the slot, read CFA-relative, holds it.
    let dir = tempfile::tempdir().unwrap();
    let object = build_object(dir.path(), true);
    let exe = link(dir.path(), &object);
    let done = finish_function(backend_mir::sum20(true), &options(0)).unwrap();
    let mut stops: Vec<(u32, Vec<(i64, u32)>)> = Vec::new();
    for (block, offsets) in done.mir.blocks.iter().zip(&done.inst_offsets) {
        for (inst, &(offset, _)) in block.insts.iter().zip(offsets) {
            let InstKind::DbgValue(d) = &inst.kind else {
                continue;
            };
            if let [DbgOperand::SpillSlot(slot, _)] = d.operands[..] {
                let entry = (done.slot_cfa_offset(slot), d.variable - 10 + 1);
                match stops.last_mut() {
                    Some((o, list)) if *o == offset => list.push(entry),
                    _ => stops.push((offset, vec![entry])),
                }
            }
        }
    }
    assert!(stops.len() >= 3, "expected spilled values in sum20");
    let mut commands: Vec<String> = stops
        .iter()
        .map(|(o, _)| format!("break *(sum20+{o})"))
        .collect();
    commands.push("run".into());
    let mut expected = Vec::new();
    for (_, list) in &stops {
        for &(cfa_offset, value) in list {
            // rsp stays put in the body, this far below the CFA.
            let cfa = done.frame.rsp_below_cfa;
            commands.push(format!("print *(long *)($rsp + {cfa} + {cfa_offset})"));
            expected.push(value);
        }
        commands.push("continue".into());
    }
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let out = support::gdb_batch(&exe, &refs);
    let printed: Vec<u32> = out
        .lines()
        .filter_map(|l| l.strip_prefix('$')?.split_once(" = ")?.1.parse().ok())
        .collect();
    assert_eq!(printed, expected, "{out}");
}
