//! Constructs the corpus does not use but clang prints: string and
//! aggregate initializers, constant expressions, named values and labels,
//! varargs calls, memset/memcpy, switch, select, freeze, unreachable.

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::*;

const TEXT: &str = r#"
%struct.pt = type { i32, i32 }
%struct.opaque = type opaque

@.str = private unnamed_addr constant [4 x i8] c"a\22b\00", align 1
@arr = internal global [3 x i32] [i32 1, i32 -2, i32 3], align 4
@pt = dso_local global %struct.pt { i32 7, i32 8 }, align 4
@second = global ptr getelementptr inbounds ([4 x i8], ptr @.str, i64 0, i64 1), align 8
@zeros = common global [8 x i64] zeroinitializer, align 16
@ext = external global i32, align 4
@addr = global i64 ptrtoint (ptr @ext to i64)
@big = global i128 -1
@flag = global i1 true

declare i32 @printf(ptr noundef, ...)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg)

define internal signext i8 @f(i32 noundef %n, ptr %buf) {
entry:
  %x.addr = alloca i32, i32 4, align 16
  call void @llvm.memset.p0.i64(ptr align 16 %x.addr, i8 0, i64 16, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr @.str, i64 4, i1 false)
  %call = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %n)
  %r = urem i32 %n, 3
  %sel = select i1 true, i32 %r, i32 %later
  %fr = freeze i32 %sel
  switch i32 %fr, label %other [
    i32 0, label %zero
    i32 -1, label %done
  ]

zero:
  %later = add i32 %n, 1
  br label %done

other:
  unreachable

done:
  %res = phi i32 [ %later, %zero ], [ 5, %entry ]
  %t = trunc i32 %res to i8
  ret i8 %t
}
"#;

fn module() -> Module {
    parse_module(TEXT, "constructs.ll").unwrap_or_else(|d| panic!("{d}"))
}

fn global<'m>(m: &'m Module, name: &str) -> &'m Global {
    m.globals
        .iter()
        .find(|g| g.name == name)
        .expect("global exists")
}

#[test]
fn initializers_of_every_shape() {
    let m = module();
    let s = global(&m, ".str");
    assert_eq!(s.linkage, Linkage::Private);
    assert_eq!(s.unnamed_addr, UnnamedAddr::Global);
    assert!(s.constant);
    assert_eq!(s.initializer, Some(Constant::Bytes(b"a\"b\0".to_vec())));
    assert_eq!(
        global(&m, "arr").initializer,
        Some(Constant::Array {
            elem: Type::I32,
            elems: vec![
                Constant::int(32, 1),
                Constant::int(32, -2),
                Constant::int(32, 3)
            ],
        })
    );
    assert_eq!(global(&m, "arr").linkage, Linkage::Internal);
    assert_eq!(
        global(&m, "pt").initializer,
        Some(Constant::Struct {
            ty: Type::Named(StructId(0)),
            fields: vec![Constant::int(32, 7), Constant::int(32, 8)],
        })
    );
    assert_eq!(m.structs[1].fields, None, "opaque struct has no body");
    let Some(Constant::Expr(gep)) = &global(&m, "second").initializer else {
        panic!("no constant GEP")
    };
    let ConstExpr::Gep {
        flags,
        source,
        base,
        indices,
    } = &**gep
    else {
        panic!("not a GEP")
    };
    assert!(flags.inbounds);
    assert_eq!(
        *source,
        Type::Array {
            len: 4,
            elem: Box::new(Type::I8)
        }
    );
    assert_eq!(*base, Constant::Global(GlobalRef::Var(GlobalId(0))));
    assert_eq!(indices, &[Constant::int(64, 0), Constant::int(64, 1)]);
    assert_eq!(global(&m, "zeros").linkage, Linkage::Common);
    assert_eq!(
        global(&m, "zeros").initializer,
        Some(Constant::Zero(Type::Array {
            len: 8,
            elem: Box::new(Type::I64)
        }))
    );
    assert_eq!(global(&m, "ext").initializer, None);
    let Some(Constant::Expr(cast)) = &global(&m, "addr").initializer else {
        panic!("no cast")
    };
    assert_eq!(
        **cast,
        ConstExpr::Cast {
            op: CastOp::PtrToInt,
            value: Constant::Global(GlobalRef::Var(GlobalId(5))),
            to: Type::I64,
        }
    );
    let big = global(&m, "big").initializer.clone().unwrap();
    assert_eq!(
        (big.sext_value(), big.zext_value()),
        (Some(-1), Some(u128::MAX))
    );
    assert_eq!(global(&m, "flag").initializer, Some(Constant::int(1, 1)));
}

#[test]
fn named_values_labels_calls_and_terminators() {
    let m = module();
    let f = m.function(m.function_by_name("f").unwrap());
    assert_eq!(f.linkage, Linkage::Internal);
    assert!(f.ret_attrs.signext);
    assert_eq!(f.params[0].name.as_deref(), Some("n"));
    let labels: Vec<Option<&str>> = f.blocks.iter().map(|b| b.name.as_deref()).collect();
    assert_eq!(
        labels,
        [Some("entry"), Some("zero"), Some("other"), Some("done")]
    );
    let entry: Vec<&Inst> = f.blocks[0].insts.iter().map(|&i| f.inst(i)).collect();
    assert_eq!(entry[0].name.as_deref(), Some("x.addr"));
    assert!(matches!(
        entry[0].kind,
        InstKind::Alloca {
            allocated: Type::Int(32),
            count: Some(_),
            align: Some(16)
        }
    ));
    let intrinsics: Vec<Option<Intrinsic>> = entry[1..4]
        .iter()
        .map(|i| match &i.kind {
            InstKind::Call { callee, .. } => m.intrinsic(callee),
            _ => None,
        })
        .collect();
    assert_eq!(
        intrinsics,
        [Some(Intrinsic::Memset), Some(Intrinsic::Memcpy), None]
    );
    let InstKind::Call { fn_ty, args, .. } = &entry[3].kind else {
        panic!("not a call")
    };
    assert!(fn_ty.varargs);
    assert_eq!(fn_ty.params, [Type::Ptr]);
    assert_eq!(args.len(), 2);
    // `%sel` uses `%later`, defined in a later block: resolved after the body.
    let InstKind::Select { if_false, .. } = &entry[5].kind else {
        panic!("not a select")
    };
    let later = f.blocks[1].insts[0];
    assert_eq!(*if_false, Value::Inst(later));
    assert_eq!(f.inst(later).name.as_deref(), Some("later"));
    let InstKind::Switch { cases, default, .. } = &entry[7].kind else {
        panic!("not a switch")
    };
    assert_eq!(*default, BlockId(2));
    assert_eq!(
        cases,
        &[
            (Constant::int(32, 0), BlockId(1)),
            (Constant::int(32, -1), BlockId(3))
        ]
    );
    assert_eq!(f.inst(f.blocks[2].insts[0]).kind, InstKind::Unreachable);
    let succs = cfg::successors(f);
    assert_eq!(succs[0], [BlockId(2), BlockId(1), BlockId(3)]);
    let dom = cfg::DomTree::compute(f);
    assert_eq!(dom.idom(BlockId(3)), Some(BlockId(0)));
}

#[test]
fn unnamed_parameters_and_results_are_numbered_implicitly() {
    // `%0` is the unnamed parameter, the entry block is `%1`, the unused
    // call result is `%3`.
    let text = "define i32 @g(i32, i32 %b) {\n  %2 = add i32 %0, %b\n  call i32 @g(i32 %2, i32 1)\n  br label %4\n\n4:\n  %5 = add i32 %3, %0\n  ret i32 %5\n}\n";
    let m = parse_module(text, "implicit.ll").unwrap_or_else(|d| panic!("{d}"));
    let f = &m.functions[0];
    let InstKind::Binary { lhs, rhs, .. } = &f.inst(InstId(3)).kind else {
        panic!("not an add")
    };
    assert_eq!((lhs, rhs), (&Value::Inst(InstId(1)), &Value::Arg(0)));
    let InstKind::Binary { lhs, rhs, .. } = &f.inst(InstId(0)).kind else {
        panic!("not an add")
    };
    assert_eq!((lhs, rhs), (&Value::Arg(0), &Value::Arg(1)));
    let back = parse_module(&text.replace("br label %4", "br label %1"), "implicit.ll").unwrap();
    assert_eq!(
        back.functions[0].inst(InstId(2)).kind,
        InstKind::Br { dest: BlockId(0) }
    );
    let unknown = text.replace("br label %4", "br label %other");
    let error = parse_module(&unknown, "implicit.ll").unwrap_err();
    assert_eq!(
        error.to_string(),
        "implicit.ll:4:12: error: use of undefined label '%other'"
    );
}

#[test]
fn comdats_module_asm_and_attribute_groups_are_skipped() {
    let text = "$f = comdat any\nmodule asm \"nop\"\ndeclare void @g() nounwind\n$h = comdat any\ndefine linkonce_odr void @f() comdat #0 {\n  call void @g() #0\n  ret void\n}\nattributes #0 = { nounwind \"frame-pointer\"=\"none\" }\n";
    let m = parse_module(text, "skip.ll").unwrap_or_else(|d| panic!("{d}"));
    let names: Vec<(&str, Linkage)> = m
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.linkage))
        .collect();
    assert_eq!(
        names,
        [("g", Linkage::External), ("f", Linkage::LinkOnceOdr)]
    );
}

#[test]
fn replace_all_uses_reaches_operands_and_debug_records() {
    let text = "define i32 @h(i32 %a) !dbg !1 {\n  %b = add i32 %a, 1\n  #dbg_value(i32 %b, !2, !DIExpression(), !3)\n  %c = mul i32 %b, %b\n  ret i32 %c\n}\n!1 = distinct !DISubprogram(name: \"h\")\n!2 = !DILocalVariable(name: \"v\", scope: !1)\n!3 = !DILocation(line: 1, scope: !1)\n";
    let mut m = parse_module(text, "rauw.ll").unwrap_or_else(|d| panic!("{d}"));
    let f = &mut m.functions[0];
    assert_eq!(
        f.replace_all_uses(&Value::Inst(InstId(0)), &Value::Arg(0)),
        3
    );
    assert_eq!(f.inst(InstId(1)).records[0].locations, [Value::Arg(0)]);
    assert!(f
        .inst(InstId(1))
        .operands()
        .iter()
        .all(|v| **v == Value::Arg(0)));
    assert_eq!(
        f.replace_all_uses(&Value::Inst(InstId(0)), &Value::Arg(0)),
        0
    );
}
