//! Round trips of many generated models: location expressions (every
//! operation in every position, typed and generic, under both tunings);
//! code and data (functions with and without rodata, data objects in every
//! section, relocations of every kind against every kind of symbol); and
//! debug info (type graphs of every kind, duplicate files with and without
//! checksums, nested lexical and inlined scopes, parameters, globals). A
//! fixed-seed xorshift generator makes the cases; a failure names the case.

use dwarfsmith_emit::model::*;
use dwarfsmith_emit::verify::{round_trip, verify};
use dwarfsmith_emit::write::write;
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

/// Writes `model` and checks `verify` finds nothing wrong with it.
fn verifies_clean(model: &ObjectModel, options: &WriteOptions) -> Result<(), String> {
    let bytes = write(model, options).map_err(|e| e.to_string())?;
    let problems: Vec<String> = verify(&bytes).iter().map(|p| p.to_string()).collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("verify: {}", problems.join("; ")))
    }
}

fn argument(random: &mut Random) -> LocationArg {
    match random.below(5) {
        4 => LocationArg::EntryValue {
            register: random.pick(&[0, 4, 5, 17, 31, 32, 40]),
        },
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
        // pieces that cover the variable's 8 bytes, some of them empty
        let mut remaining = 8;
        while remaining > 0 {
            let size = random.pick(&[1, 2, 4, 8]).min(remaining);
            if random.below(5) != 0 {
                ops.extend(piece(random, &mut args));
            }
            ops.push(Op::Piece(size));
            remaining -= size;
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
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
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
                declaration: false,
                calls: dwarfsmith_emit::model::Calls::default(),
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
                        ..Default::default()
                    }],
                    children: vec![],
                },
                ..Default::default()
            }],
            line_rows: vec![vec![LineRow {
                offset: 0,
                file: 0,
                line: 1,
                column: 1,
                is_stmt: true,
                prologue_end: false,
                epilogue_begin: false,
            }]],
            globals: vec![],
            ..Default::default()
        }),
    }
}

fn check(debugger_tune: DebuggerTune) {
    let options = WriteOptions { debugger_tune };
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for case in 0..200 {
        let model = model(&mut random);
        if let Err(error) =
            round_trip(&model, &options).and_then(|()| verifies_clean(&model, &options))
        {
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
                aliases: Vec::new(),
                comdat: None,
                name: format!("d{i}"),
                global: random.below(2) == 0,
                binding: Default::default(),
                section_name: None,
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
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
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
        let options = WriteOptions::default();
        if let Err(error) =
            round_trip(&model, &options).and_then(|()| verifies_clean(&model, &options))
        {
            panic!("case {case}: {error}\nmodel: {model:#?}");
        }
    }
}

fn random_type(random: &mut Random, index: usize) -> Type {
    // Types refer only to earlier ones (index 0 is always a base type).
    let earlier = |random: &mut Random| random.below(index.max(1) as u64) as usize;
    if index == 0 {
        return Type::Base {
            name: "int".into(),
            byte_size: 4,
            encoding: 5,
        };
    }
    match random.below(11) {
        0 => Type::Base {
            name: format!("base{index}"),
            byte_size: random.pick(&[1, 2, 4, 8]),
            encoding: random.pick(&[5, 7, 8]),
        },
        1 => Type::Pointer(if random.below(4) == 0 {
            None
        } else {
            Some(earlier(random))
        }),
        2 => Type::Const(Some(earlier(random))),
        3 => Type::Volatile(Some(earlier(random))),
        4 => Type::Restrict(Some(earlier(random))),
        5 => Type::Typedef {
            scope: None,
            name: format!("t{index}"),
            target: Some(earlier(random)),
            access: None,
        },
        6 => Type::Struct {
            scope: None,
            name: if random.below(3) == 0 {
                None
            } else {
                Some(format!("s{index}"))
            },
            kind: if random.below(3) == 0 {
                Aggregate::Union
            } else {
                Aggregate::Structure
            },
            bases: Vec::new(),
            byte_size: if random.below(5) == 0 {
                None
            } else {
                Some(random.below(64))
            },
            members: (0..random.below(4))
                .map(|m| {
                    let name = format!("m{m}");
                    let ty = earlier(random);
                    if random.below(3) == 0 {
                        // A bitfield: its byte offset is where its first bit is.
                        let data_bit_offset = 32 * m + random.below(24);
                        Member {
                            name,
                            ty,
                            byte_offset: data_bit_offset / 8,
                            bit_field: Some(BitField {
                                bit_size: 1 + random.below(8),
                                data_bit_offset,
                            }),
                            access: None,
                            artificial: false,
                            is_static: false,
                            const_value: Default::default(),
                        }
                    } else {
                        Member {
                            name,
                            ty,
                            byte_offset: 4 * m,
                            bit_field: None,
                            access: None,
                            artificial: false,
                            is_static: false,
                            const_value: Default::default(),
                        }
                    }
                })
                .collect(),
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        },
        7 => Type::Array {
            element: earlier(random),
            counts: (0..1 + random.below(3))
                .map(|_| {
                    if random.below(4) == 0 {
                        None
                    } else {
                        Some(1 + random.below(9))
                    }
                })
                .collect(),
            vector: None,
        },
        8 => Type::Enum {
            scope: None,
            name: Some(format!("e{index}")),
            underlying: Some(0),
            byte_size: 4,
            enum_class: false,
            enumerators: (0..random.below(4))
                .map(|k| (format!("k{k}"), k as i64 - 1))
                .collect(),
        },
        _ => Type::Subroutine {
            return_type: if random.below(2) == 0 {
                None
            } else {
                Some(earlier(random))
            },
            parameters: (0..random.below(3))
                .map(|_| Some(earlier(random)))
                .collect(),
            this_parameter: false,
            variadic: false,
            prototyped: true,
        },
    }
}

fn random_variables(
    random: &mut Random,
    files: u32,
    types: usize,
    parameters: bool,
) -> Vec<Variable> {
    (0..random.below(4))
        .map(|k| Variable {
            name: format!("v{k}"),
            arg: (parameters && random.below(2) == 0).then_some(7),
            ty: Some(random.below(types as u64) as usize),
            file: random.below(u64::from(files)) as u32,
            line: 1 + random.below(30) as u32,
            location: VariableLocation::None,
            ..Default::default()
        })
        .collect()
}

/// A scope over `[low, high)`: its nested scopes take disjoint parts of it.
fn random_scope(
    random: &mut Random,
    depth: u32,
    files: u32,
    types: usize,
    origins: usize,
    (low, high): (u64, u64),
) -> Scope {
    let mut scope = Scope {
        variables: random_variables(random, files, types, depth == 0),
        children: Vec::new(),
    };
    let count = if depth < 2 { random.below(3) } else { 0 };
    let width = (high - low) / count.max(1);
    for k in 0..count {
        if width < 2 {
            break;
        }
        let slice = low + k * width;
        let start = slice + random.below(width - 1);
        let end = start + 1 + random.below(slice + width - start - 1);
        let inner = random_scope(random, depth + 1, files, types, origins, (start, end));
        let ranges = vec![(start, end)];
        scope.children.push(if origins > 0 && random.below(2) == 0 {
            ChildScope::Inlined {
                origin: random.below(origins as u64) as usize,
                ranges,
                call_file: random.below(u64::from(files)) as u32,
                call_line: random.below(50) as u32,
                call_column: random.below(20) as u32,
                scope: inner,
            }
        } else {
            ChildScope::Lexical {
                ranges,
                scope: inner,
            }
        });
    }
    scope
}

fn debug_model(random: &mut Random) -> ObjectModel {
    let types: Vec<Type> = (0..1 + random.below(10) as usize)
        .map(|i| random_type(random, i))
        .collect();
    let names = ["a.c", "b.h", "a.c", "c.h"];
    let directories = ["/src", "", "/src", "/inc"];
    let files: Vec<SourceFile> = (0..1 + random.below(4) as usize)
        .map(|i| SourceFile {
            name: names[i].into(),
            directory: directories[i].into(),
            md5: (random.below(3) != 0).then_some([i as u8; 16]),
        })
        .collect();
    let file_count = files.len() as u32;
    let functions: Vec<Function> = (0..1 + random.below(3))
        .map(|i| Function {
            name: format!("f{i}"),
            global: true,
            code: vec![0x90; 24],
            ..Function::default()
        })
        .collect();
    let abstract_count = random.below(3) as usize;
    let mut subprograms: Vec<Subprogram> = (0..abstract_count)
        .map(|i| Subprogram {
            name: format!("inl{i}"),
            linkage_name: None,
            file: random.below(u64::from(file_count)) as u32,
            line: 1 + random.below(40) as u32,
            return_type: None,
            external: false,
            prototyped: true,
            function: None,
            declaration: false,
            calls: dwarfsmith_emit::model::Calls::default(),
            scope: Scope {
                variables: random_variables(random, file_count, types.len(), true),
                children: vec![],
            },
            ..Default::default()
        })
        .collect();
    for (i, function) in functions.iter().enumerate() {
        subprograms.push(Subprogram {
            name: function.name.clone(),
            linkage_name: (random.below(3) == 0).then(|| format!("_Z{i}")),
            file: random.below(u64::from(file_count)) as u32,
            line: 1 + random.below(40) as u32,
            return_type: (random.below(2) == 0).then(|| random.below(types.len() as u64) as usize),
            external: random.below(2) == 0,
            prototyped: random.below(2) == 0,
            function: Some(i),
            declaration: false,
            calls: dwarfsmith_emit::model::Calls::default(),
            scope: random_scope(random, 0, file_count, types.len(), abstract_count, (0, 24)),
            ..Default::default()
        });
    }
    let line_rows = functions
        .iter()
        .map(|_| {
            let mut offset = 0;
            (0..1 + random.below(5))
                .map(|_| {
                    offset += random.below(4);
                    LineRow {
                        offset: offset.min(23),
                        file: random.below(u64::from(file_count)) as u32,
                        line: random.below(60) as u32,
                        column: random.below(20) as u32,
                        is_stmt: random.below(2) == 0,
                        prologue_end: random.below(4) == 0,
                        epilogue_begin: random.below(6) == 0,
                    }
                })
                .collect()
        })
        .collect();
    let data: Vec<DataObject> = (0..random.below(3))
        .map(|i| DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
            name: format!("g{i}"),
            global: true,
            section: random.pick(&[DataSection::Data, DataSection::Bss, DataSection::ReadOnly]),
            align: 4,
            bytes: vec![0; 4],
            relocations: vec![],
        })
        .collect();
    let globals = (0..data.len())
        .map(|i| GlobalVariable {
            function: None,
            name: format!("g{i}"),
            linkage_name: None,
            ty: Some(0),
            file: random.below(u64::from(file_count)) as u32,
            line: random.below(9) as u32,
            external: random.below(2) == 0,
            data: (random.below(4) != 0).then_some(i),
            context: None,
            specification: Default::default(),
        })
        .collect();
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions,
        data,
        debug: Some(DebugInfo {
            producer: "dwarfsmith".into(),
            language: 0x1d,
            name: "a.c".into(),
            comp_dir: "/src".into(),
            files,
            types,
            subprograms,
            line_rows,
            globals,
            ..Default::default()
        }),
    }
}

#[test]
fn generated_debug_info_round_trips() {
    let mut random = Random(0xfeed_f00d_dead_beef);
    for case in 0..300 {
        let model = debug_model(&mut random);
        let options = WriteOptions::default();
        if let Err(error) =
            round_trip(&model, &options).and_then(|()| verifies_clean(&model, &options))
        {
            panic!("case {case}: {error}\nmodel: {model:#?}");
        }
    }
}
