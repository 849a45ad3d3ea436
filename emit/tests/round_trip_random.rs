//! Round trips of many generated location expressions: every operation in
//! every position, typed and generic, under both tunings. A fixed-seed
//! xorshift generator makes the cases; a failure names the seed's case.

use dwarfsmith_emit::model::*;
use dwarfsmith_emit::verify::round_trip;
use dwarfsmith_emit::write::{DebuggerTune, WriteOptions};

/// xorshift64*: small, deterministic, good enough to pick cases.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

fn argument(random: &mut Random) -> LocationArg {
    match random.below(4) {
        0 | 1 => LocationArg::Register {
            register: random.below(17) as u16,
            bits: random.pick(&[8, 16, 32, 64]),
            signed: random.below(2) == 0,
        },
        2 => LocationArg::FrameSlot(random.below(64) as i64 - 48),
        _ => LocationArg::Constant(random.below(600) as i64 - 300),
    }
}

/// One piece's operations: a valid stack program leaving one value.
fn piece(random: &mut Random, args: &mut Vec<LocationArg>) -> Vec<Op> {
    let mut ops = Vec::new();
    let mut depth = 0;
    let length = 1 + random.below(6);
    while ops.len() < length as usize || depth != 1 {
        let choice = random.below(10);
        if depth == 0 || (choice < 3 && depth < 3) {
            ops.push(match random.below(3) {
                0 | 1 => {
                    if args.len() < 3 {
                        args.push(argument(random));
                    }
                    Op::Arg(random.below(args.len() as u64) as u32)
                }
                2 => Op::Constu(random.below(1000)),
                _ => unreachable!(),
            });
            if random.below(4) == 0 {
                ops.push(Op::Consts(random.below(200) as i64 - 100));
                depth += 1;
            }
            depth += 1;
        } else if depth >= 2 && choice < 7 {
            ops.push(random.pick(&[
                Op::Plus,
                Op::Minus,
                Op::Mul,
                Op::Div,
                Op::Mod,
                Op::And,
                Op::Or,
                Op::Xor,
                Op::Shl,
                Op::Shr,
                Op::Shra,
            ]));
            depth -= 1;
        } else {
            ops.push(match random.below(6) {
                0 => Op::Neg,
                1 => Op::Not,
                2 => Op::PlusUconst(random.below(100)),
                3 => Op::DerefSize(random.pick(&[1, 2, 4, 8])),
                4 => Op::Deref,
                _ => Op::Convert {
                    bits: random.pick(&[8, 16, 32, 64]),
                    signed: random.below(2) == 0,
                },
            });
        }
    }
    if random.below(3) != 0 {
        ops.push(Op::StackValue);
    }
    ops
}

fn location(random: &mut Random) -> Location {
    let mut args = Vec::new();
    let mut ops = Vec::new();
    if random.below(4) == 0 {
        for _ in 0..1 + random.below(3) {
            if random.below(5) != 0 {
                ops.extend(piece(random, &mut args));
            }
            ops.push(Op::Piece(random.pick(&[1, 2, 4, 8])));
        }
    } else {
        ops = piece(random, &mut args);
    }
    Location { args, ops }
}

/// One function of 64 bytes whose one variable has 16 generated entries.
fn model(random: &mut Random) -> ObjectModel {
    let entries = (0..16)
        .map(|k| LocationEntry {
            start: 4 * k,
            end: 4 * k + 4,
            location: location(random),
        })
        .collect();
    ObjectModel {
        functions: vec![Function {
            name: "f".into(),
            global: true,
            code: vec![0x90; 64],
            ..Function::default()
        }],
        data: vec![],
        debug: Some(DebugInfo {
            producer: "dwarfsmith".into(),
            language: 0x1d,
            name: "random.c".into(),
            comp_dir: "/src".into(),
            files: vec![SourceFile {
                name: "random.c".into(),
                directory: "/src".into(),
                md5: None,
            }],
            types: vec![Type::Base {
                name: "long".into(),
                byte_size: 8,
                encoding: 5,
            }],
            subprograms: vec![Subprogram {
                name: "f".into(),
                linkage_name: None,
                file: 0,
                line: 1,
                return_type: None,
                external: true,
                prototyped: true,
                function: Some(0),
                scope: Scope {
                    variables: vec![Variable {
                        name: "x".into(),
                        arg: None,
                        ty: Some(0),
                        file: 0,
                        line: 2,
                        location: VariableLocation::List {
                            function: 0,
                            entries,
                        },
                    }],
                    children: vec![],
                },
            }],
            line_rows: vec![vec![]],
            globals: vec![],
        }),
    }
}

fn check(debugger_tune: DebuggerTune) {
    let options = WriteOptions { debugger_tune };
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for case in 0..200 {
        let model = model(&mut random);
        if let Err(error) = round_trip(&model, &options) {
            let VariableLocation::List { entries, .. } =
                &model.debug.as_ref().expect("debug").subprograms[0]
                    .scope
                    .variables[0]
                    .location
            else {
                unreachable!("built as a list")
            };
            let locations: Vec<String> = entries
                .iter()
                .map(|e| format!("{:?}", e.location))
                .collect();
            panic!(
                "{debugger_tune:?} case {case}: {error}\nlocations:\n{}",
                locations.join("\n")
            );
        }
    }
}

#[test]
fn generated_locations_round_trip_tuned_for_gdb() {
    check(DebuggerTune::Gdb);
}

#[test]
fn generated_locations_round_trip_tuned_for_lldb() {
    check(DebuggerTune::Lldb);
}
