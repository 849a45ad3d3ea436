//! The verifier on hand-made bad modules: each breaks one invariant and must
//! give exactly the expected error (function, instruction, position).
//! A module is written as .ll text and broken after parsing by editing the
//! model. Each verdict is checked against LLVM's: opt-19 must reject the
//! printed text of every module we reject and accept every one we accept.

use std::path::PathBuf;
use std::process::Command;

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::ir::verify::verify_module;
use dwarfsmith::ir::{Inst, InstKind, Module, Type, Value};
use expect_test::{expect, Expect};

/// Parses `text`, applies `breakage`, verifies, and compares the error
/// (`line:col: message`, or `ok`) with `expected`.
fn check(text: &str, breakage: impl FnOnce(&mut Module), expected: Expect) {
    let mut module = parse_module(text, "bad.ll").unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(
        verify_module(&module),
        Ok(()),
        "the module must verify before it is broken"
    );
    breakage(&mut module);
    let verdict = verify_module(&module);
    let llvm_accepts = opt19_accepts(&print_module(&module, DebugSyntax::Records));
    assert_eq!(
        verdict.is_ok(),
        llvm_accepts,
        "opt-19 and our verifier disagree on the printed module ({verdict:?})"
    );
    let actual = match verdict {
        Ok(()) => "ok".to_string(),
        Err(d) => format!("{}:{}: {}", d.pos.line, d.pos.col, d.message),
    };
    expected.assert_eq(&actual);
}

/// Whether `opt-19 -passes=verify` accepts `text`, debug info included (the
/// test fails loudly if opt-19 is absent).
fn opt19_accepts(text: &str) -> bool {
    let opt = ["/usr/bin/opt-19", "/usr/lib/llvm-19/bin/opt"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("opt-19 is needed: neither /usr/bin/opt-19 nor /usr/lib/llvm-19/bin/opt exists");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("module.ll");
    std::fs::write(&path, text).unwrap();
    let output = Command::new(opt)
        .args(["-passes=verify", "-disable-output"])
        .arg(&path)
        .output()
        .expect("cannot run opt-19");
    // Broken debug info is not fatal to opt: it warns and strips it.
    output.status.success()
        && !String::from_utf8_lossy(&output.stderr).contains("invalid debug info")
}

/// Two functions with debug info: @first(i32 %0) and @second(i32 %0), each
/// with one parameter variable and a diamond in @second.
const TWO_FUNCTIONS: &str = r#"
define i32 @first(i32 %0) !dbg !5 {
    #dbg_value(i32 %0, !8, !DIExpression(), !9)
  %2 = add i32 %0, 1, !dbg !9
  ret i32 %2, !dbg !9
}

define i32 @second(i32 %0) !dbg !10 {
    #dbg_value(i32 %0, !11, !DIExpression(), !12)
  %2 = icmp sgt i32 %0, 0, !dbg !12
  br i1 %2, label %3, label %5, !dbg !12

3:
  %4 = mul i32 %0, 3, !dbg !12
  br label %5, !dbg !12

5:
  %6 = phi i32 [ %4, %3 ], [ 0, %1 ], !dbg !12
  %7 = add i32 %6, 1, !dbg !12
  ret i32 %7, !dbg !12
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, isOptimized: true, emissionKind: FullDebug)
!1 = !DIFile(filename: "two.c", directory: ".")
!2 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "first", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{!2, !2}
!8 = !DILocalVariable(name: "x", arg: 1, scope: !5, file: !1, line: 1, type: !2)
!9 = !DILocation(line: 2, column: 3, scope: !5)
!10 = distinct !DISubprogram(name: "second", scope: !1, file: !1, line: 5, type: !6, scopeLine: 5, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DILocalVariable(name: "y", arg: 1, scope: !10, file: !1, line: 5, type: !2)
!12 = !DILocation(line: 6, column: 3, scope: !10)
"#;

fn second(module: &mut Module) -> &mut dwarfsmith::ir::Function {
    let id = module.function_by_name("second").unwrap();
    &mut module.functions[id.0 as usize]
}

#[test]
fn an_unbroken_module_verifies() {
    check(TWO_FUNCTIONS, |_| {}, expect![[r#"ok"#]]);
}

#[test]
fn a_use_in_a_block_its_definition_does_not_dominate() {
    // `%7 = add i32 %6, 1` becomes `add i32 %4, 1`: %4 is defined in %3,
    // which does not dominate %5 (the edge %1 -> %5 bypasses it).
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            let add = f.blocks[2].insts[1];
            let mul = f.blocks[1].insts[0];
            let InstKind::Binary { lhs, .. } = &mut f.inst_mut(add).kind else {
                panic!("expected the add");
            };
            *lhs = Value::Inst(mul);
        },
        expect![
            "19:3: in function @second: `%7 = add` in block %5 uses %4, which does not dominate it"
        ],
    );
}

#[test]
fn a_debug_record_whose_location_is_in_another_function() {
    // @second's record gets @first's location !9 (scope @first).
    check(
        TWO_FUNCTIONS,
        |m| {
            let first_loc = {
                let first = &m.functions[m.function_by_name("first").unwrap().0 as usize];
                first.insts[first.blocks[0].insts[0].0 as usize].records[0].loc
            };
            let f = second(m);
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].loc = first_loc;
        },
        expect![[
            r#"10:3: in function @second: #dbg_value of variable "y" before `%2 = icmp` in block %1: its DILocation is in DISubprogram "first", not in the function's DISubprogram "second""#
        ]],
    );
}

#[test]
fn a_debug_record_whose_variable_is_another_functions() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let first_var = {
                let first = &m.functions[m.function_by_name("first").unwrap().0 as usize];
                first.insts[first.blocks[0].insts[0].0 as usize].records[0].variable
            };
            let f = second(m);
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].variable = first_var;
        },
        expect![[
            r#"10:3: in function @second: #dbg_value of variable "x" before `%2 = icmp` in block %1: the variable belongs to DISubprogram "first" but the record's DILocation is in DISubprogram "second""#
        ]],
    );
}

#[test]
fn an_instruction_location_in_another_function() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let first_loc = {
                let first = &m.functions[m.function_by_name("first").unwrap().0 as usize];
                first.insts[first.blocks[0].insts[0].0 as usize].dbg
            };
            let f = second(m);
            let mul = f.blocks[1].insts[0];
            f.inst_mut(mul).dbg = first_loc;
        },
        expect![[
            r#"14:3: in function @second: `%4 = mul` in block %3 has a !dbg location that is in DISubprogram "first", not in the function's DISubprogram "second""#
        ]],
    );
}

#[test]
fn a_block_without_terminator() {
    check(
        TWO_FUNCTIONS,
        |m| {
            second(m).blocks[1].insts.pop();
        },
        expect!["14:3: in function @second: block %3 does not end in a terminator (its last instruction is `%4 = mul`)"],
    );
}

#[test]
fn a_terminator_in_the_middle_of_a_block() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            let unreachable = f.add_inst(Inst::new(InstKind::Unreachable, Type::Void));
            f.blocks[1].insts.insert(1, unreachable);
        },
        expect!["8:1: in function @second: terminator `unreachable` is in the middle of block %3"],
    );
}

#[test]
fn a_phi_whose_entries_do_not_match_the_predecessors() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            let phi = f.blocks[2].insts[0];
            let InstKind::Phi { incoming } = &mut f.inst_mut(phi).kind else {
                panic!("expected the phi");
            };
            incoming.pop();
        },
        expect!["18:3: in function @second: `%6 = phi` in block %5 has entries for [%3] but the block's predecessors are [%1, %3]"],
    );
}

#[test]
fn a_phi_after_a_non_phi() {
    check(
        TWO_FUNCTIONS,
        |m| {
            second(m).blocks[2].insts.swap(0, 1);
        },
        expect![
            "18:3: in function @second: `%7 = phi` in block %5 comes after a non-phi instruction"
        ],
    );
}

#[test]
fn operands_of_different_types() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            // `%7 = add i32 %6, 1` becomes `add i32 %6, %2`, %2 an i1.
            let add = f.blocks[2].insts[1];
            let icmp = f.blocks[0].insts[0];
            let InstKind::Binary { rhs, .. } = &mut f.inst_mut(add).kind else {
                panic!("expected the add");
            };
            *rhs = Value::Inst(icmp);
        },
        expect!["19:3: in function @second: `%7 = add` in block %5: the right operand has type i1, expected i32"],
    );
}

#[test]
fn a_return_of_the_wrong_type() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            let ret = f.blocks[2].insts[2];
            f.inst_mut(ret).kind = InstKind::Ret {
                value: Some(Value::int(1, 0)),
            };
        },
        expect!["20:3: in function @second: `ret` in block %5: the returned value has type i1, expected i32"],
    );
}

/// Ids that point nowhere (as a buggy pass might leave them) are errors,
/// never panics, in the verifier; the printer writes such a module without
/// panicking too.
#[test]
fn dangling_ids_are_errors_not_panics() {
    use dwarfsmith::ir::{BlockId, ExprId, InstId, LocId, MdId};

    type Breakage = fn(&mut dwarfsmith::ir::Function, MdId);
    let breakages: [(&str, Breakage); 11] = [
        ("operand to no instruction", |f, _| {
            let add = f.blocks[2].insts[1];
            if let InstKind::Binary { rhs, .. } = &mut f.inst_mut(add).kind {
                *rhs = Value::Inst(InstId(9999));
            }
        }),
        ("operand to no argument", |f, _| {
            let add = f.blocks[2].insts[1];
            if let InstKind::Binary { rhs, .. } = &mut f.inst_mut(add).kind {
                *rhs = Value::Arg(7);
            }
        }),
        ("branch to no block", |f, _| {
            let br = f.blocks[1].insts[1];
            f.inst_mut(br).kind = InstKind::Br { dest: BlockId(99) };
        }),
        ("block lists no instruction", |f, _| {
            f.blocks[1].insts.insert(0, InstId(9999));
        }),
        ("record variable missing", |f, _| {
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].variable = MdId(9999);
        }),
        ("record location missing", |f, _| {
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].loc = LocId(9999);
        }),
        ("record expression missing", |f, _| {
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].expr = ExprId(9999);
        }),
        ("record variable is a file", |f, file| {
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].variable = file;
        }),
        ("instruction location missing", |f, _| {
            let mul = f.blocks[1].insts[0];
            f.inst_mut(mul).dbg = Some(LocId(9999));
        }),
        ("subprogram missing", |f, _| {
            f.subprogram = Some(MdId(9999));
        }),
        ("subprogram is a file", |f, file| {
            f.subprogram = Some(file);
        }),
    ];
    let mut report = String::new();
    for (what, breakage) in breakages {
        let mut module = parse_module(TWO_FUNCTIONS, "bad.ll").unwrap();
        let file = module.functions[0].blocks[0]
            .insts
            .first()
            .map(|&id| module.functions[0].inst(id).records[0].variable)
            .and_then(|var| module.debug.variable(var).and_then(|v| v.file))
            .unwrap();
        breakage(second(&mut module), file);
        let result = verify_module(&module);
        print_module(&module, DebugSyntax::Records);
        print_module(&module, DebugSyntax::Intrinsics);
        let message = match result {
            Ok(()) => "ok".to_string(),
            Err(d) => d.message,
        };
        report.push_str(&format!("{what}: {message}\n"));
    }
    expect![[r#"
        operand to no instruction: in function @second: `%7 = add` in block %5 uses instruction #9999, which does not exist
        operand to no argument: in function @second: `%7 = add` in block %5 uses argument #7, but the function has 1 parameter
        branch to no block: in function @second: `br` in block %3 refers to block #99, which does not exist
        block lists no instruction: in function @second: block %3 lists instruction #9999, which is not in the function
        record variable missing: in function @second: #dbg_value of metadata #9999 before `%2 = icmp` in block %1: it names metadata #9999 (which does not exist), not a DILocalVariable
        record location missing: in function @second: #dbg_value of variable "y" before `%2 = icmp` in block %1: its DILocation refers to location #9999, which does not exist
        record expression missing: in function @second: #dbg_value of variable "y" before `%2 = icmp` in block %1: its expression #9999 does not exist
        record variable is a file: in function @second: #dbg_value of metadata #1 before `%2 = icmp` in block %1: it names a DIFile, not a DILocalVariable
        instruction location missing: in function @second: `%4 = mul` in block %3 has a !dbg location that refers to location #9999, which does not exist
        subprogram missing: in function @second: its !dbg is metadata #9999 (which does not exist), not a DISubprogram
        subprogram is a file: in function @second: its !dbg is a DIFile, not a DISubprogram
    "#]].assert_eq(&report);
}

/// A location in @first's scope, inlined at `inlined_at` (a location of
/// `caller`), placed on @second's `%4 = mul`.
fn inline_first_into(module: &mut Module, caller: &str) {
    let caller_loc = {
        let f = &module.functions[module.function_by_name(caller).unwrap().0 as usize];
        f.inst(*f.blocks[0].insts.last().unwrap()).dbg.unwrap()
    };
    let first_sp = module.functions[module.function_by_name("first").unwrap().0 as usize]
        .subprogram
        .unwrap();
    let inlined = module.debug.intern_location(dwarfsmith::ir::DILocation {
        line: 2,
        column: 9,
        scope: first_sp,
        inlined_at: Some(caller_loc),
        implicit_code: false,
        distinct: false,
        atom_group: 0,
        atom_rank: 0,
    });
    let f = second(module);
    let mul = f.blocks[1].insts[0];
    f.inst_mut(mul).dbg = Some(inlined);
}

#[test]
fn an_inlined_location_whose_call_site_is_in_the_function_verifies() {
    check(
        TWO_FUNCTIONS,
        |m| inline_first_into(m, "second"),
        expect!["ok"],
    );
}

#[test]
fn an_inlined_location_whose_call_site_is_in_another_function() {
    check(
        TWO_FUNCTIONS,
        |m| inline_first_into(m, "first"),
        expect![[
            r#"14:3: in function @second: `%4 = mul` in block %3 has a !dbg location that is inlined into DISubprogram "first", not into the function's DISubprogram "second""#
        ]],
    );
}

#[test]
fn a_global_whose_initializer_has_another_type() {
    check(
        "@counter = global i32 0, align 4\n",
        |m| m.globals[0].initializer = Some(dwarfsmith::ir::Constant::Null),
        expect!["1:1: in global @counter: its initializer has type ptr, expected i32"],
    );
}

/// @first with a local `%slot` described by a `#dbg_declare`, and a
/// lifetime intrinsic whose size is an immarg.
const DECLARE_AND_LIFETIME: &str = r#"
define i32 @first(i32 %0) !dbg !5 {
  %slot = alloca i32, align 4
    #dbg_declare(ptr %slot, !8, !DIExpression(), !9)
  call void @llvm.lifetime.start.p0(i64 4, ptr %slot), !dbg !9
  store i32 %0, ptr %slot, align 4, !dbg !9
  %2 = load i32, ptr %slot, align 4, !dbg !9
  ret i32 %2, !dbg !9
}

declare void @llvm.lifetime.start.p0(i64 immarg, ptr)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, isOptimized: true, emissionKind: FullDebug)
!1 = !DIFile(filename: "one.c", directory: ".")
!2 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "first", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{!2, !2}
!8 = !DILocalVariable(name: "v", scope: !5, file: !1, line: 2, type: !2)
!9 = !DILocation(line: 2, column: 3, scope: !5)
"#;

#[test]
fn an_immarg_argument_that_is_not_a_constant() {
    check(
        DECLARE_AND_LIFETIME,
        |m| {
            let f = &mut m.functions[0];
            let call = f.blocks[0].insts[1];
            if let InstKind::Call { args, .. } = &mut f.inst_mut(call).kind {
                args[0].value = Value::Arg(0);
            }
            // keep the types right: the size operand is an i64 parameter now
            f.params[0].ty = Type::I64;
            f.ret_ty = Type::I64;
            let load = f.blocks[0].insts[3];
            f.inst_mut(load).ty = Type::I64;
            let store = f.blocks[0].insts[2];
            if let InstKind::Store { value, .. } = &mut f.inst_mut(store).kind {
                *value = Value::Arg(0);
            }
        },
        expect!["5:3: in function @first: `call` in block %1: argument 1 must be a constant (the parameter is immarg)"],
    );
}

/// Two functions, each storing through its argument with assignment tracking.
const TWO_ASSIGNMENTS: &str = r#"
define void @first(ptr %0) !dbg !5 {
  store i32 1, ptr %0, align 4, !dbg !9, !DIAssignID !20
    #dbg_assign(i32 1, !8, !DIExpression(), !20, ptr %0, !DIExpression(), !9)
  ret void, !dbg !9
}

define void @second(ptr %0) !dbg !10 {
  store i32 2, ptr %0, align 4, !dbg !12, !DIAssignID !21
    #dbg_assign(i32 2, !11, !DIExpression(), !21, ptr %0, !DIExpression(), !12)
  ret void, !dbg !12
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!4, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, isOptimized: true, emissionKind: FullDebug)
!1 = !DIFile(filename: "two.c", directory: ".")
!2 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!3 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "first", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocalVariable(name: "x", scope: !5, file: !1, line: 1, type: !2)
!9 = !DILocation(line: 2, column: 3, scope: !5)
!10 = distinct !DISubprogram(name: "second", scope: !1, file: !1, line: 5, type: !6, scopeLine: 5, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DILocalVariable(name: "y", scope: !10, file: !1, line: 5, type: !2)
!12 = !DILocation(line: 6, column: 3, scope: !10)
!20 = distinct !DIAssignID()
!21 = distinct !DIAssignID()
"#;

#[test]
fn an_assign_record_linked_to_a_store_of_another_function() {
    check(
        TWO_ASSIGNMENTS,
        |m| {
            let first_id = m.functions[0].insts[0].assign_id.unwrap();
            let f = second(m);
            let ret = f.blocks[0].insts[1];
            f.inst_mut(ret).records[0].assign.as_mut().unwrap().id = first_id;
        },
        expect![[
            r#"11:3: in function @second: #dbg_assign of variable "y" before `ret` in block %1: its DIAssignID is attached to an instruction of @first, not of this function"#
        ]],
    );
}

#[test]
fn a_debug_record_attached_to_a_phi() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            let icmp = f.blocks[0].insts[0];
            let phi = f.blocks[2].insts[0];
            let record = f.inst_mut(icmp).records.remove(0);
            f.inst_mut(phi).records.push(record);
        },
        expect!["18:3: in function @second: `%6 = phi` in block %5 has debug records attached; they belong after the phis"],
    );
}

/// Sets the expression of @second's first record (variable "y", an int).
fn set_first_record_expr(m: &mut Module, ops: Vec<dwarfsmith::ir::ExprOp>) {
    let expr = m.debug.intern_expr(dwarfsmith::ir::DIExpression { ops });
    let f = second(m);
    let icmp = f.blocks[0].insts[0];
    f.inst_mut(icmp).records[0].expr = expr;
}

#[test]
fn a_fragment_outside_its_variable() {
    use dwarfsmith::ir::ExprOp::{Arg, Fragment};
    check(
        TWO_FUNCTIONS,
        |m| {
            set_first_record_expr(
                m,
                vec![
                    Arg(0),
                    Fragment {
                        offset: 16,
                        size: 32,
                    },
                ],
            )
        },
        expect![[
            r#"10:3: in function @second: #dbg_value of variable "y" before `%2 = icmp` in block %1: its fragment (offset 16, size 32 bits) is larger than or outside of the 32-bit variable"#
        ]],
    );
}

#[test]
fn a_fragment_covering_its_whole_variable() {
    use dwarfsmith::ir::ExprOp::{Arg, Fragment};
    check(
        TWO_FUNCTIONS,
        |m| {
            set_first_record_expr(
                m,
                vec![
                    Arg(0),
                    Fragment {
                        offset: 0,
                        size: 32,
                    },
                ],
            )
        },
        expect![[
            r#"10:3: in function @second: #dbg_value of variable "y" before `%2 = icmp` in block %1: its fragment covers the entire 32-bit variable"#
        ]],
    );
}

#[test]
fn a_fragment_inside_its_variable_verifies() {
    use dwarfsmith::ir::ExprOp::{Arg, Fragment};
    check(
        TWO_FUNCTIONS,
        |m| {
            set_first_record_expr(
                m,
                vec![
                    Arg(0),
                    Fragment {
                        offset: 16,
                        size: 16,
                    },
                ],
            )
        },
        expect!["ok"],
    );
}

/// The bug a pass makes when it deletes an instruction without salvaging
/// or killing the debug records that use it.
#[test]
fn a_debug_record_using_a_deleted_instruction() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let f = second(m);
            let mul = f.blocks[1].insts[0];
            let deleted = f.add_inst(f.inst(mul).clone());
            let icmp = f.blocks[0].insts[0];
            f.inst_mut(icmp).records[0].locations[0] = Value::Inst(deleted);
        },
        expect![[
            r#"10:3: in function @second: #dbg_value of variable "y" before `%2 = icmp` in block %1: it uses instruction #7, which is in no block (deleted without salvaging its debug uses?)"#
        ]],
    );
}

/// The bug a pass makes when it clones a function without its subprogram.
#[test]
fn a_subprogram_attached_to_two_functions() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let first_sp = m.functions[0].subprogram;
            second(m).subprogram = first_sp;
        },
        expect![[
            r#"8:1: in function @second: its !dbg DISubprogram "first" is also attached to @first"#
        ]],
    );
}

#[test]
fn a_function_whose_subprogram_is_not_distinct() {
    check(
        TWO_FUNCTIONS,
        |m| {
            let sp = m.functions[1].subprogram.unwrap();
            m.debug.nodes[sp.0 as usize].distinct = false;
        },
        expect![[
            r#"8:1: in function @second: its !dbg DISubprogram "second" is not distinct (a definition's must be)"#
        ]],
    );
}
