//! Round trips of many generated models: location expressions (every
//! operation in every position, typed and generic, under both tunings), and
//! code and data (functions with and without rodata, data objects in every
//! section, relocations of every kind against every kind of symbol). A
//! fixed-seed xorshift generator makes the cases; a failure names the case.

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

/// A relocation target for code or data of a model with `functions`
/// functions (code lengths given) and `data` data objects.
fn target(random: &mut Random, lengths: &[u64], data: usize) -> Symbol {
    match random.below(4) {
        0 => Symbol::Named(format!("f{}", random.below(lengths.len() as u64))),
        1 if data > 0 => Symbol::Named(format!("d{}", random.below(data as u64))),
        2 => Symbol::Named(random.pick(&["puts", "malloc", "stderr"]).to_string()),
        _ => {
            let function = random.below(lengths.len() as u64) as usize;
            Symbol::FunctionCode {
                function,
                offset: random.below(lengths[function]),
            }
        }
    }
}

/// Relocations at distinct 4-byte-aligned fields of `len` bytes.
fn relocations(
    random: &mut Random,
    len: u64,
    kinds: &[RelocationKind],
    target: &mut dyn FnMut(&mut Random) -> Symbol,
) -> Vec<Relocation> {
    let mut relocations = Vec::new();
    let mut offset = random.below(3) * 4;
    while offset + 8 <= len {
        if random.below(2) == 0 {
            let kind = random.pick(kinds);
            relocations.push(Relocation {
                offset,
                kind,
                symbol: target(random),
                addend: random.below(9) as i64 - 4,
            });
        }
        offset += 8 + random.below(2) * 4;
    }
    relocations
}

fn code_model(random: &mut Random) -> ObjectModel {
    let count = 1 + random.below(4) as usize;
    let lengths: Vec<u64> = (0..count).map(|_| 12 + random.below(40)).collect();
    let data_count = random.below(5) as usize;
    let mut functions: Vec<Function> = (0..count)
        .map(|i| Function {
            name: format!("f{i}"),
            global: random.below(2) == 0,
            code: (0..lengths[i]).map(|_| random.below(256) as u8).collect(),
            ..Function::default()
        })
        .collect();
    for i in 0..count {
        let mut code_target = |random: &mut Random| target(random, &lengths, data_count);
        let kinds = [
            RelocationKind::Pc32,
            RelocationKind::Plt32,
            RelocationKind::GotPcRelX,
        ];
        // leave the first 8 bytes for the reference to the function's rodata
        let mut relocations = relocations(random, lengths[i], &kinds, &mut code_target);
        relocations.retain(|r| r.offset >= 8);
        if random.below(2) == 0 {
            let table = 8 * (1 + random.below(4));
            functions[i].rodata = vec![0; table as usize + random.below(4) as usize];
            relocations.push(Relocation {
                offset: 2,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionData(i),
                addend: -4,
            });
            // entries `target - table`: PC-relative, addend = entry offset
            functions[i].rodata_relocations = (0..table / 4)
                .step_by(2)
                .map(|k| {
                    let function = random.below(count as u64) as usize;
                    Relocation {
                        offset: 4 * k,
                        kind: RelocationKind::Pc32,
                        symbol: Symbol::FunctionCode {
                            function,
                            offset: random.below(lengths[function]),
                        },
                        addend: 4 * k as i64,
                    }
                })
                .collect();
        }
        relocations.sort_by_key(|r| r.offset);
        functions[i].relocations = relocations;
    }
    let data = (0..data_count)
        .map(|i| {
            let section =
                random.pick(&[DataSection::Data, DataSection::ReadOnly, DataSection::Bss]);
            let len = 8 + random.below(24);
            let mut data_target = |random: &mut Random| target(random, &lengths, data_count);
            DataObject {
                name: format!("d{i}"),
                global: random.below(2) == 0,
                section,
                align: random.pick(&[1, 4, 8, 16]),
                bytes: if section == DataSection::Bss {
                    vec![0; len as usize]
                } else {
                    (0..len).map(|_| random.below(256) as u8).collect()
                },
                relocations: if section == DataSection::Bss {
                    vec![]
                } else {
                    relocations(random, len, &[RelocationKind::Abs64], &mut data_target)
                },
            }
        })
        .collect();
    ObjectModel {
        functions,
        data,
        debug: None,
    }
}

#[test]
fn generated_code_and_data_round_trip() {
    let mut random = Random(0x0123_4567_89ab_cdef);
    for case in 0..300 {
        let model = code_model(&mut random);
        if let Err(error) = round_trip(&model, &WriteOptions::default()) {
            panic!("case {case}: {error}\nmodel: {model:#?}");
        }
    }
}
