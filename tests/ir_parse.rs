//! What the parser reads from corpus files, checked in detail, and its
//! diagnostics for malformed input.

use std::fmt::Write as _;
use std::path::Path;

use dwarfsmith::ir::debug::{MdNode, MdOperand};
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::*;
use expect_test::{expect, Expect};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/ll")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse_fixture(name: &str) -> Module {
    parse_module(&fixture(name), name).unwrap_or_else(|d| panic!("{d}"))
}

// ----- a compact rendering of what was parsed -----

fn value(m: &Module, v: &Value) -> String {
    match v {
        Value::Arg(n) => format!("%arg{n}"),
        Value::Inst(id) => format!("%i{}", id.0),
        Value::Const(c) => constant(m, c),
    }
}

fn constant(m: &Module, c: &Constant) -> String {
    match c {
        Constant::Int { bits, value } => format!("i{bits} {value}"),
        Constant::Null => "null".into(),
        Constant::Undef(t) => format!("{t:?} undef"),
        Constant::Poison(t) => format!("{t:?} poison"),
        Constant::Global(g) => format!("@{}", m.symbol_name(*g)),
        other => format!("{other:?}"),
    }
}

fn location(m: &Module, id: LocId) -> String {
    let loc = m.debug.location(id);
    let scope = match m.debug.node(loc.scope) {
        MdNode::Subprogram(s) => s.name.clone(),
        MdNode::LexicalBlock(b) => format!("block@{}:{}", b.line, b.column),
        other => format!("{other:?}"),
    };
    let inlined = match loc.inlined_at {
        Some(at) => format!(" inlined at {}", location(m, at)),
        None => String::new(),
    };
    format!("{}:{} in {scope}{inlined}", loc.line, loc.column)
}

fn record(m: &Module, r: &DebugRecord) -> String {
    let name = match m.debug.node(r.variable) {
        MdNode::LocalVariable(v) => v.name.clone(),
        MdNode::Label(l) => l.name.clone(),
        other => format!("{other:?}"),
    };
    let locs: Vec<String> = r.locations.iter().map(|v| value(m, v)).collect();
    let mut s = format!(
        "#{:?} {name} [{}] {:?} @ {}",
        r.kind,
        locs.join(", "),
        m.debug.expr(r.expr).ops,
        location(m, r.loc)
    );
    if let Some(a) = &r.assign {
        let _ = write!(
            s,
            " assign(!m{}, {}, {:?})",
            a.id.0,
            value(m, &a.address),
            m.debug.expr(a.address_expr).ops
        );
    }
    s
}

fn flags(f: &ArithFlags) -> String {
    [
        (f.nuw, " nuw"),
        (f.nsw, " nsw"),
        (f.exact, " exact"),
        (f.disjoint, " disjoint"),
        (f.nneg, " nneg"),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, name)| *name)
    .collect()
}

fn inst(m: &Module, i: &Inst) -> String {
    let v = |x: &Value| value(m, x);
    match &i.kind {
        InstKind::Binary {
            op,
            flags: f,
            lhs,
            rhs,
        } => {
            format!("{}{} {}, {}", op.name(), flags(f), v(lhs), v(rhs))
        }
        InstKind::Load { ptr, align, .. } => format!("load {:?}, {} align {align:?}", i.ty, v(ptr)),
        InstKind::Store {
            value: x,
            ptr,
            align,
            ..
        } => {
            format!("store {}, {} align {align:?}", v(x), v(ptr))
        }
        InstKind::Gep {
            flags: f,
            source,
            base,
            indices,
        } => {
            let idx: Vec<String> = indices.iter().map(&v).collect();
            format!(
                "gep{} {source:?}, {}, {}",
                if f.inbounds { " inbounds" } else { "" },
                v(base),
                idx.join(", ")
            )
        }
        InstKind::ICmp { pred, lhs, rhs } => format!("icmp {} {}, {}", pred.name(), v(lhs), v(rhs)),
        InstKind::Cast {
            op,
            flags: f,
            value,
        } => {
            format!("{}{} {} to {:?}", op.name(), flags(f), v(value), i.ty)
        }
        InstKind::Call {
            tail, callee, args, ..
        } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| {
                    format!(
                        "{}{}",
                        if a.attrs.nonnull { "nonnull " } else { "" },
                        v(&a.value)
                    )
                })
                .collect();
            format!("call {tail:?} {}({})", v(callee), args.join(", "))
        }
        InstKind::Ret { value: Some(x) } => format!("ret {}", v(x)),
        other => format!("{other:?}"),
    }
}

fn render_function(m: &Module, f: &Function) -> String {
    let mut out = String::new();
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let a = &p.attrs;
            let words = [
                (a.signext, " signext"),
                (a.zeroext, " zeroext"),
                (a.noundef, " noundef"),
            ];
            let attrs: String = words
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, w)| *w)
                .collect();
            format!("{:?}{attrs}", p.ty)
        })
        .collect();
    let _ = writeln!(out, "{} {:?} ({})", f.name, f.ret_ty, params.join(", "));
    for (b, block) in f.blocks.iter().enumerate() {
        let _ = writeln!(out, " bb{b}:");
        for &id in &block.insts {
            let i = f.inst(id);
            for r in &i.records {
                let _ = writeln!(out, "    {}", record(m, r));
            }
            let dbg = i
                .dbg
                .map(|l| format!("  !dbg {}", location(m, l)))
                .unwrap_or_default();
            let assign = i
                .assign_id
                .map(|id| format!("  !DIAssignID !m{}", id.0))
                .unwrap_or_default();
            let _ = writeln!(out, "  %i{} = {}{dbg}{assign}", id.0, inst(m, i));
        }
    }
    out
}

fn render_module(m: &Module) -> String {
    m.functions.iter().map(|f| render_function(m, f)).collect()
}

fn check_function(file: &str, function: &str, expect: Expect) {
    let m = parse_fixture(file);
    let id = m.function_by_name(function).expect("function exists");
    expect.assert_eq(&render_function(&m, m.function(id)));
}

// ----- spot checks -----

#[test]
fn arith_temps_functions_parameters_and_records() {
    let m = parse_fixture("arith_temps.O2.ll");
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["blend", "offsets", "narrow"]);
    let narrow = m.function(m.function_by_name("narrow").unwrap());
    assert_eq!(narrow.params[0].ty, Type::Int(16));
    assert!(narrow.params[0].attrs.zeroext && narrow.params[0].attrs.noundef);
    assert!(!narrow.params[0].attrs.signext);
    assert_eq!(narrow.params[1].ty, Type::Int(8));
    assert!(narrow.params[1].attrs.zeroext);
    assert_eq!(narrow.unnamed_addr, UnnamedAddr::Local);
    assert!(narrow.dso_local);
    let blend = m.function(m.function_by_name("blend").unwrap());
    let records: usize = blend.insts.iter().map(|i| i.records.len()).sum();
    assert_eq!(records, 5);
    let sp = m.debug.subprogram(blend.subprogram.unwrap()).unwrap();
    assert_eq!(
        (sp.name.as_str(), sp.line, sp.is_definition()),
        ("blend", 3, true)
    );
    assert_eq!(m.source_filename.as_deref(), Some("arith_temps.c"));
    assert_eq!(m.triple.as_deref(), Some("x86_64-pc-linux-gnu"));
    assert!(m.assignment_tracking());
    let cus = m.compile_units();
    assert_eq!(cus.len(), 1);
    let MdNode::CompileUnit(cu) = m.debug.node(cus[0]) else {
        panic!("not a CU")
    };
    assert_eq!(cu.language, "DW_LANG_C11");
    let file = m.debug.file(cu.file.unwrap()).unwrap();
    assert_eq!(file.filename, "arith_temps.c");
    assert_eq!(
        file.checksum,
        Some(("CSK_MD5".into(), "3eee814d8bf11851044463b5ee13600a".into()))
    );
}

#[test]
fn offsets_has_a_two_operand_arg_list_and_normalised_expressions() {
    check_function(
        "arith_temps.O2.ll",
        "offsets",
        expect![[r#"
            offsets Int(32) (Int(32) noundef, Int(32) noundef)
             bb0:
                #Value a [%arg0] [Arg(0)] @ 0:0 in offsets
                #Value b [%arg1] [Arg(0)] @ 0:0 in offsets
              %i0 = add nsw %arg1, %arg0  !dbg 11:15 in offsets
                #Value sum [%i0] [Arg(0)] @ 0:0 in offsets
              %i1 = sub %arg1, %arg0  !dbg 12:16 in offsets
                #Value diff [%arg0, %arg1] [Arg(0), Arg(1), Minus, StackValue] @ 0:0 in offsets
              %i2 = shl nsw %i0, i32 3  !dbg 13:20 in offsets
                #Value scaled [%i2] [Arg(0)] @ 0:0 in offsets
              %i3 = shl %i1, i32 2  !dbg 14:22 in offsets
                #Value shifted [%arg0, %arg1] [Arg(0), Arg(1), Minus, Constu(2), Shl, StackValue] @ 0:0 in offsets
              %i4 = add %i3, %i2  !dbg 15:17 in offsets
              %i5 = ret %i4  !dbg 15:3 in offsets
        "#]],
    );
}

#[test]
fn structs_area_has_assign_records_linked_to_stores() {
    check_function(
        "structs.O2.ll",
        "area",
        expect![[r#"
            area Int(32) (Int(64), Int(64))
             bb0:
              %i0 = Alloca { allocated: Array { len: 4, elem: Int(32) }, count: None, align: Some(16) }  !DIAssignID !m26
                #Assign cells [Int(1) undef] [Arg(0)] @ 0:0 in area assign(!m26, %i0, [Arg(0)])
              %i1 = trunc %arg0 to Int(32)
              %i2 = lshr %arg0, i64 32
              %i3 = trunc nuw %i2 to Int(32)
                #Value a [%i1] [Arg(0), Fragment { offset: 0, size: 32 }] @ 0:0 in area
                #Value a [%i3] [Arg(0), Fragment { offset: 32, size: 32 }] @ 0:0 in area
              %i4 = trunc %arg1 to Int(32)
              %i5 = lshr %arg1, i64 32
              %i6 = trunc nuw %i5 to Int(32)
                #Value b [%i4] [Arg(0), Fragment { offset: 0, size: 32 }] @ 0:0 in area
                #Value b [%i6] [Arg(0), Fragment { offset: 32, size: 32 }] @ 0:0 in area
              %i7 = sub nsw %i4, %i1  !dbg 7:13 in area
                #Value d [%i7] [Arg(0), Fragment { offset: 0, size: 32 }] @ 0:0 in area
              %i8 = sub nsw %i6, %i3  !dbg 8:13 in area
                #Value d [%i8] [Arg(0), Fragment { offset: 32, size: 32 }] @ 0:0 in area
              %i9 = call None @llvm.lifetime.start.p0(i64 16, nonnull %i0)  !dbg 9:3 in area
              %i10 = store %i7, %i0 align Some(16)  !dbg 9:18 in area  !DIAssignID !m31
                #Assign cells [%i7] [Arg(0), Fragment { offset: 0, size: 32 }] @ 0:0 in area assign(!m31, %i0, [Arg(0)])
              %i11 = gep inbounds Int(8), %i0, i64 4  !dbg 9:18 in area
              %i12 = store %i8, %i11 align Some(4)  !dbg 9:18 in area  !DIAssignID !m32
                #Assign cells [%i8] [Arg(0), Fragment { offset: 32, size: 32 }] @ 0:0 in area assign(!m32, %i11, [Arg(0)])
              %i13 = gep inbounds Int(8), %i0, i64 8  !dbg 9:18 in area
              %i14 = store i32 1, %i13 align Some(8)  !dbg 9:18 in area  !DIAssignID !m33
                #Assign cells [i32 1] [Arg(0), Fragment { offset: 64, size: 32 }] @ 0:0 in area assign(!m33, %i13, [Arg(0)])
              %i15 = gep inbounds Int(8), %i0, i64 12  !dbg 9:18 in area
              %i16 = store i32 2, %i15 align Some(4)  !dbg 9:18 in area  !DIAssignID !m34
                #Assign cells [i32 2] [Arg(0), Fragment { offset: 96, size: 32 }] @ 0:0 in area assign(!m34, %i15, [Arg(0)])
              %i17 = call None @observe(nonnull %i0, i32 4)  !dbg 10:3 in area
              %i18 = load Int(32), %i0 align Some(16)  !dbg 11:11 in area
              %i19 = load Int(32), %i11 align Some(4)  !dbg 11:22 in area
              %i20 = mul nsw %i19, %i18  !dbg 11:20 in area
                #Value r [%i20] [Arg(0)] @ 0:0 in area
              %i21 = load Int(32), %i15 align Some(4)  !dbg 12:14 in area
              %i22 = add nsw %i20, %i21  !dbg 12:12 in area
              %i23 = call None @llvm.lifetime.end.p0(i64 16, nonnull %i0)  !dbg 13:1 in area
              %i24 = ret %i22  !dbg 12:3 in area
        "#]],
    );
}

#[test]
fn records_and_intrinsics_forms_give_the_same_module() {
    for program in [
        "arith_temps",
        "bits",
        "inlining",
        "licm",
        "many_args",
        "matrix",
        "pointers",
        "recursion",
        "select_diamond",
        "sort",
        "strings",
        "structs",
        "sum_array",
        "switch_table",
    ] {
        let records = parse_fixture(&format!("{program}.O2.ll"));
        let intrinsics = parse_fixture(&format!("{program}.O2.intrinsics.ll"));
        let text = render_module(&records);
        assert!(text.contains("#Value"), "{program}: no records parsed");
        assert_eq!(text, render_module(&intrinsics), "{program}: forms differ");
    }
}

#[test]
fn typed_pointers_are_normalised_and_globals_kept() {
    let m = parse_fixture("pointers.O2.llvm14.ll");
    assert_eq!(m.structs.len(), 1);
    assert_eq!(m.structs[0].name, "struct.node");
    assert_eq!(m.structs[0].fields, Some(vec![Type::I32, Type::Ptr]));
    let list_find = m.function(m.function_by_name("list_find").unwrap());
    assert_eq!(list_find.ret_ty, Type::Ptr);
    assert_eq!(list_find.params[0].ty, Type::Ptr);
    let g = &m.globals[0];
    assert_eq!(g.name, "counter");
    assert_eq!(
        (g.dso_local, g.unnamed_addr, g.constant),
        (true, UnnamedAddr::Local, false)
    );
    assert_eq!(
        (g.ty.clone(), g.initializer.clone(), g.align),
        (Type::I32, Some(Constant::int(32, 0)), Some(4))
    );
    let MdNode::GlobalVariableExpression(gve) = m.debug.node(g.dbg[0]) else {
        panic!("no DIGlobalVariableExpression")
    };
    let MdNode::GlobalVariable(var) = m.debug.node(gve.var) else {
        panic!("no DIGlobalVariable")
    };
    assert_eq!(
        (var.name.as_str(), var.line, var.is_definition),
        ("counter", 4, true)
    );
    // The loads and GEPs of the typed form read as ptr.
    let geps: Vec<&Inst> = list_find
        .insts
        .iter()
        .filter(|i| matches!(i.kind, InstKind::Gep { .. }))
        .collect();
    assert_eq!(geps.len(), 2);
    let InstKind::Gep {
        source,
        indices,
        flags,
        ..
    } = &geps[1].kind
    else {
        unreachable!()
    };
    assert!(flags.inbounds);
    assert_eq!(m.gep_const_offset(source, indices), Some(8));
}

#[test]
fn equal_locations_are_interned_and_inlined_at_chains_kept() {
    let text = "define void @f() !dbg !3 {\n  ret void, !dbg !5\n}\n!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1)\n!1 = !DIFile(filename: \"a.c\", directory: \".\")\n!3 = distinct !DISubprogram(name: \"f\", unit: !0)\n!5 = !DILocation(line: 2, column: 1, scope: !3)\n!6 = !DILocation(line: 2, column: 1, scope: !3)\n!7 = !{!5, !6, !DILocation(line: 2, column: 1, scope: !3), !8}\n!8 = distinct !DILocation(line: 2, column: 1, scope: !3)\n!9 = !{!7}\n";
    let m = parse_module(text, "t.ll").unwrap();
    let MdNode::Tuple(ops) = m.debug.node(
        m.debug
            .nodes
            .iter()
            .position(|e| matches!(&e.node, MdNode::Tuple(o) if o.len() == 4))
            .map(|i| MdId(i as u32))
            .unwrap(),
    ) else {
        unreachable!()
    };
    let ids: Vec<MdRef> = ops
        .iter()
        .map(|o| match o {
            MdOperand::Ref(r) => *r,
            _ => panic!(),
        })
        .collect();
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[0], ids[2]);
    assert_ne!(ids[0], ids[3], "a distinct location keeps its own id");
    let f = &m.functions[0];
    assert_eq!(Some(ids[0]), f.inst(InstId(0)).dbg.map(MdRef::Location));
}

// ----- diagnostics -----

fn check_error(text: &str, expected: &str) {
    match parse_module(text, "bad.ll") {
        Ok(_) => panic!("parsed without error; expected {expected}"),
        Err(d) => assert_eq!(d.to_string(), expected),
    }
}

const HEADER: &str = "define i32 @f(i32 %0) {\n";

#[test]
fn unknown_instruction_is_named_at_its_column() {
    check_error(
        &format!("{HEADER}  %2 = frobnicate i32 %0\n  ret i32 %2\n}}\n"),
        "bad.ll:2:8: error: unknown instruction 'frobnicate'",
    );
}

#[test]
fn undefined_metadata_is_reported_at_the_reference() {
    check_error(
        &format!("{HEADER}  ret i32 %0, !dbg !999\n}}\n"),
        "bad.ll:2:20: error: reference to undefined metadata !999",
    );
}

#[test]
fn truncated_file_is_unexpected_end_of_file() {
    check_error(
        &format!("{HEADER}  ret i32 %0"),
        "bad.ll:2:13: error: unexpected end of file",
    );
    check_error(
        "define i32 @f(i32",
        "bad.ll:1:18: error: unexpected end of file",
    );
    check_error(
        "source_filename = \"abc",
        "bad.ll:1:23: error: unexpected end of file",
    );
}

#[test]
fn undefined_values_and_type_mismatches() {
    check_error(
        &format!("{HEADER}  ret i32 %7\n}}\n"),
        "bad.ll:2:11: error: use of undefined value '%7'",
    );
    check_error(
        &format!("{HEADER}  %2 = add i64 %0, 1\n  ret i32 %0\n}}\n"),
        "bad.ll:2:16: error: type mismatch: '%0' is not of the type it is used with",
    );
    check_error(
        &format!("{HEADER}  br label %9\n}}\n"),
        "bad.ll:2:12: error: use of undefined label '%9'",
    );
}

#[test]
fn truncations_of_a_corpus_file_never_panic_and_always_fail() {
    for name in [
        "arith_temps.O2.ll",
        "structs.O2.intrinsics.ll",
        "pointers.O2.llvm14.ll",
    ] {
        let text = fixture(name);
        let first_define = text.find("define").unwrap();
        let full = text.trim_end();
        let mut checked = 0;
        for cut in (0..text.len()).step_by(3) {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let prefix = &text[..cut];
            let result = std::panic::catch_unwind(|| parse_module(prefix, name));
            let Ok(result) = result else {
                panic!("{name}: panic when cut at byte {cut}")
            };
            if cut > first_define && prefix.trim_end() != full {
                assert!(
                    result.is_err(),
                    "{name}: cut at byte {cut} parsed without error"
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "{name}: only {checked} cut points");
    }
}

/// A tiny deterministic generator (xorshift) for the mutation test.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn random_mutations_of_corpus_files_never_panic() {
    const PIECES: &[&str] = &[
        "",
        " ",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        "!",
        "!9999",
        "%",
        "@",
        "\"",
        "#dbg_value(",
        "i32",
        "ptr",
        "!DILocation(",
        "!{",
        "distinct",
        "-",
        "0",
        "x",
        "*",
        ":",
        "=",
        "<{",
        "call",
        "phi",
        "label %",
        "metadata",
        "...",
        "!DIArgList(",
        "DW_OP_LLVM_arg,",
    ];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    for name in [
        "inlining.O2.ll",
        "structs.O2.intrinsics.ll",
        "pointers.O2.llvm14.ll",
        "sort.O0.ll",
    ] {
        let text = fixture(name);
        for round in 0..400 {
            let mut mutated = text.clone();
            for _ in 0..1 + rng.below(3) {
                let mut at = rng.below(mutated.len());
                while !mutated.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + rng.below(6)).min(mutated.len());
                while !mutated.is_char_boundary(end) {
                    end -= 1;
                }
                mutated.replace_range(at..end, PIECES[rng.below(PIECES.len())]);
            }
            let outcome = std::panic::catch_unwind(|| parse_module(&mutated, name).map(|_| ()));
            assert!(
                outcome.is_ok(),
                "{name}: panic on mutation round {round}:\n{mutated}"
            );
        }
    }
}

#[test]
fn deep_nesting_and_location_cycles_are_errors() {
    let depth = 100_000;
    let deep_type = format!(
        "@g = global {}i32{} zeroinitializer\n",
        "[1 x ".repeat(depth),
        "]".repeat(depth)
    );
    let error = parse_module(&deep_type, "deep.ll").unwrap_err();
    assert_eq!(error.message, "nesting too deep");
    let deep_const = format!("@g = global [1 x i32] {}\n", "[[1 x i32] ".repeat(depth));
    assert_eq!(
        parse_module(&deep_const, "deep.ll").unwrap_err().message,
        "nesting too deep"
    );
    check_error(
        "define void @f() !dbg !3 {\n  ret void, !dbg !5\n}\n!3 = distinct !DISubprogram(name: \"f\")\n!5 = !DILocation(line: 1, scope: !3, inlinedAt: !6)\n!6 = !DILocation(line: 2, scope: !3, inlinedAt: !5)\n",
        "bad.ll:6:49: error: metadata !5 refers to itself",
    );
}

#[test]
fn many_args_abi_attributes() {
    let m = parse_fixture("many_args.O2.ll");
    let weigh = m.function(m.function_by_name("weigh").unwrap());
    let attrs: Vec<(Type, bool, bool)> = weigh
        .params
        .iter()
        .map(|p| (p.ty.clone(), p.attrs.signext, p.attrs.zeroext))
        .collect();
    assert_eq!(
        attrs,
        [
            (Type::I8, true, false),
            (Type::Int(16), true, false),
            (Type::I32, false, false),
            (Type::I64, false, false),
            (Type::I8, false, true),
            (Type::Int(16), false, true),
            (Type::I32, false, false),
            (Type::I64, false, false),
        ]
    );
    assert!(weigh.params.iter().all(|p| p.attrs.noundef));
    assert_eq!(
        m.function(m.function_by_name("callee_sum").unwrap())
            .params
            .len(),
        9
    );
    let caller = m.function(m.function_by_name("caller").unwrap());
    assert!(caller.ret_attrs.noundef);
}

#[test]
fn debug_types_of_structs_and_arrays() {
    let m = parse_fixture("structs.O2.ll");
    let variable = |name: &str| {
        m.debug
            .nodes
            .iter()
            .find_map(|e| match &e.node {
                MdNode::LocalVariable(v) if v.name == name => Some(v.clone()),
                _ => None,
            })
            .unwrap()
    };
    // `int cells[4]`: an array type over int with one subrange of count 4.
    let MdNode::CompositeType(array) = m.debug.node(variable("cells").ty.unwrap()) else {
        panic!("cells is not an array")
    };
    assert_eq!((array.tag.as_str(), array.size), ("DW_TAG_array_type", 128));
    let MdNode::BasicType(int) = m.debug.node(array.base_type.unwrap()) else {
        panic!("no base type")
    };
    assert_eq!(
        (int.name.as_str(), int.size, int.encoding.as_deref()),
        ("int", 32, Some("DW_ATE_signed"))
    );
    let [MdOperand::Ref(MdRef::Node(range))] = m.debug.tuple(array.elements.unwrap()) else {
        panic!("one subrange expected")
    };
    let MdNode::Subrange(range) = m.debug.node(*range) else {
        panic!("not a subrange")
    };
    assert_eq!(range.count, Some(debug::MdField::Int(4)));
    // `struct pt a`: members x at 0 and y at 32 bits.
    let MdNode::CompositeType(pt) = m.debug.node(variable("a").ty.unwrap()) else {
        panic!("a is not a struct")
    };
    assert!(m.debug.nodes[variable("a").ty.unwrap().0 as usize].distinct);
    assert_eq!(
        (pt.tag.as_str(), pt.name.as_deref(), pt.size),
        ("DW_TAG_structure_type", Some("pt"), 64)
    );
    let members: Vec<(String, u64)> = m
        .debug
        .tuple(pt.elements.unwrap())
        .iter()
        .map(|op| {
            let MdOperand::Ref(MdRef::Node(id)) = op else {
                panic!("member is not a node")
            };
            let MdNode::DerivedType(d) = m.debug.node(*id) else {
                panic!("member is not derived")
            };
            assert_eq!(d.tag, "DW_TAG_member");
            (d.name.clone().unwrap(), d.offset)
        })
        .collect();
    assert_eq!(members, [("x".to_string(), 0), ("y".to_string(), 32)]);
    // The DIAssignID on the alloca is the one its #dbg_assign (riding on
    // the next instruction) names.
    let area = m.function(m.function_by_name("area").unwrap());
    let alloca = area.inst(InstId(0));
    let assign = area.inst(InstId(1)).records[0]
        .assign
        .as_ref()
        .map(|a| a.id);
    assert_eq!(alloca.assign_id, assign);
    assert!(matches!(
        m.debug.node(alloca.assign_id.unwrap()),
        MdNode::AssignId
    ));
}

#[test]
fn o0_declares_name_their_allocas_and_llvm14_calls_become_records() {
    let m = parse_fixture("sort.O0.ll");
    let f = m.function(m.function_by_name("insertion_sort").unwrap());
    let declares: Vec<(String, bool)> = f
        .insts
        .iter()
        .flat_map(|i| &i.records)
        .map(|r| {
            assert_eq!(r.kind, RecordKind::Declare);
            assert_eq!(m.debug.expr(r.expr).ops, [ExprOp::Arg(0)]);
            let [Value::Inst(slot)] = r.locations[..] else {
                panic!("not one location")
            };
            let is_alloca = matches!(f.inst(slot).kind, InstKind::Alloca { .. });
            (
                m.debug.variable(r.variable).unwrap().name.clone(),
                is_alloca,
            )
        })
        .collect();
    let expected = ["a", "n", "i", "key", "j"].map(|n| (n.to_string(), true));
    assert_eq!(declares, expected);

    let m = parse_fixture("pointers.O2.llvm14.ll");
    let f = m.function(m.function_by_name("list_sum").unwrap());
    let first = &f.inst(f.blocks[0].insts[0]).records;
    let names: Vec<&str> = first
        .iter()
        .map(|r| m.debug.variable(r.variable).unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["head", "sum", "cur"]);
    assert_eq!(first[0].locations, [Value::Arg(0)]);
    assert_eq!(first[1].locations, [Value::int(32, 0)]);
    assert_eq!(location(&m, first[0].loc), "0:0 in list_sum");
}
