//! A debug value of an instruction its block defines later takes effect
//! at that definition.
//!
//! In: a function in which a `#dbg_value` names an instruction that the
//! same block defines only after the record: LLVM's instruction sinking
//! moves code below the records that describe it (in bzip2's
//! `sendMTFValues`, `ge`'s clamping `select` sank below a `memset` call and
//! its record stayed above). Instruction selection has no register for
//! such a value at the record, so the variable lost its location until its
//! next record.
//! Out: the record moved to just after the definition, or dropped when
//! another record of the same variable (overlapping fragment) comes first,
//! as SelectionDAG resolves LLVM's "dangling" debug values. Until the
//! definition the variable keeps the location it had.
//!
//! A record naming a value of another block, or defined by its block's
//! last instruction, is left as it is; so is a record over several values
//! (a `!DIArgList`), which SelectionDAG does not resolve either: the
//! variable has no location from it. Csmith seed 205257 showed why: clang
//! left `l_66 = %a | %b` above code of an earlier source line, and the
//! values' definitions came before that line's stores in the machine code,
//! so the moved record showed the later value at the earlier line.

use std::collections::HashMap;

use crate::ir::{DebugInfo, DebugRecord, Function, InstId, InstKind, Module, RecordKind, Value};

/// Applies the rule to every function of the module.
pub fn resolve_dangling_values(module: &mut Module) {
    let debug = &module.debug;
    for function in &mut module.functions {
        if !function.is_declaration() {
            resolve_in_function(function, debug);
        }
    }
}

/// What becomes of one dangling record: the instruction it is on, its
/// index there, and the instruction it moves to (`None`: dropped).
struct Resolution {
    from: InstId,
    index: usize,
    to: Option<InstId>,
}

fn resolve_in_function(function: &mut Function, debug: &DebugInfo) {
    let mut resolutions = Vec::new();
    for block in &function.blocks {
        let position: HashMap<InstId, usize> = block
            .insts
            .iter()
            .enumerate()
            .map(|(p, &i)| (i, p))
            .collect();
        for (at, &inst) in block.insts.iter().enumerate() {
            for (index, record) in function.inst(inst).records.iter().enumerate() {
                if record.kind != RecordKind::Value || record.locations.len() > 1 {
                    continue;
                }
                let Some(defined) = record
                    .locations
                    .iter()
                    .filter_map(|v| match v {
                        Value::Inst(id) => position.get(id).copied(),
                        _ => None,
                    })
                    .filter(|&p| p >= at)
                    .max()
                else {
                    continue;
                };
                let Some(target) = block.insts[defined + 1..]
                    .iter()
                    .copied()
                    .find(|&i| !matches!(function.inst(i).kind, InstKind::Phi { .. }))
                else {
                    continue;
                };
                let target_at = position[&target];
                // Records of the same variable between the record and its
                // new place: on the same instruction after it, and on every
                // instruction up to the definition.
                let later_on_same = function.inst(inst).records[index + 1..].iter();
                let in_between = block.insts[at + 1..target_at]
                    .iter()
                    .flat_map(|&i| function.inst(i).records.iter());
                let overridden = later_on_same
                    .chain(in_between)
                    .any(|other| same_variable(debug, record, other));
                resolutions.push(Resolution {
                    from: inst,
                    index,
                    to: (!overridden).then_some(target),
                });
            }
        }
    }
    // Take the records out (last index first on each instruction), then put
    // the moved ones first on their new instruction, in their old order.
    let mut moved: Vec<(InstId, DebugRecord)> = Vec::new();
    for resolution in resolutions.iter().rev() {
        let record = function
            .inst_mut(resolution.from)
            .records
            .remove(resolution.index);
        if let Some(to) = resolution.to {
            moved.push((to, record));
        }
    }
    let mut placed: HashMap<InstId, usize> = HashMap::new();
    for (to, record) in moved.into_iter().rev() {
        let slot = placed.entry(to).or_default();
        function.inst_mut(to).records.insert(*slot, record);
        *slot += 1;
    }
}

/// Whether `a` and `b` describe the same variable (of the same inlined
/// call) with overlapping fragments.
fn same_variable(debug: &DebugInfo, a: &DebugRecord, b: &DebugRecord) -> bool {
    if a.variable != b.variable
        || debug.location(a.loc).inlined_at != debug.location(b.loc).inlined_at
    {
        return false;
    }
    match (debug.expr(a.expr).fragment(), debug.expr(b.expr).fragment()) {
        (Some((a_offset, a_size)), Some((b_offset, b_size))) => {
            a_offset < b_offset + b_size && b_offset < a_offset + a_size
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::print::{print_module, DebugSyntax};

    /// `f`'s body after the rule, records as `#dbg_value` lines.
    fn resolved(body: &str) -> String {
        let text = format!(
            "define i32 @f(i32 %a) !dbg !4 {{\n{body}}}\n\
             !llvm.dbg.cu = !{{!0}}\n!llvm.module.flags = !{{!9}}\n\
             !0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)\n\
             !1 = !DIFile(filename: \"t.c\", directory: \".\")\n\
             !4 = distinct !DISubprogram(name: \"f\", scope: !1, file: !1, line: 1, type: !5, unit: !0, spFlags: DISPFlagDefinition)\n\
             !5 = !DISubroutineType(types: !6)\n!6 = !{{}}\n\
             !7 = !DILocalVariable(name: \"x\", scope: !4, file: !1, line: 2, type: !8)\n\
             !8 = !DIBasicType(name: \"int\", size: 32, encoding: DW_ATE_signed)\n\
             !9 = !{{i32 2, !\"Debug Info Version\", i32 3}}\n\
             !10 = !DILocation(line: 2, scope: !4)\n"
        );
        let mut module = crate::ir::parse::parse_module(&text, "t.ll").unwrap();
        super::resolve_dangling_values(&mut module);
        let printed = print_module(&module, DebugSyntax::Records);
        printed
            .lines()
            .skip_while(|l| !l.starts_with("define"))
            .skip(1)
            .take_while(|l| *l != "}")
            .map(|l| format!("{}\n", l.trim()))
            .collect()
    }

    #[test]
    fn a_record_above_its_values_definition_moves_below_it() {
        assert_eq!(
            resolved(
                "  #dbg_value(i32 %b, !7, !DIExpression(), !10)\n  \
                 %b = add i32 %a, 1\n  %c = mul i32 %b, 3\n  ret i32 %c\n"
            ),
            "%b = add i32 %a, 1\n#dbg_value(i32 %b, !6, !DIExpression(), !8)\n\
             %c = mul i32 %b, 3\nret i32 %c\n"
        );
    }

    #[test]
    fn a_record_over_several_values_defined_later_stays_where_it_is() {
        let body = "  %c = mul i32 %a, 3\n  \
                    #dbg_value(!DIArgList(i32 %b, i32 %c), !7, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_or, DW_OP_stack_value), !10)\n  \
                    %b = add i32 %a, 1\n  %d = or i32 %b, %c\n  ret i32 %d\n";
        assert_eq!(
            resolved(body),
            "%c = mul i32 %a, 3\n\
             #dbg_value(!DIArgList(i32 %b, i32 %c), !6, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_or, DW_OP_stack_value), !8)\n\
             %b = add i32 %a, 1\n%d = or i32 %b, %c\nret i32 %d\n"
        );
    }

    #[test]
    fn a_record_overridden_before_its_values_definition_goes() {
        assert_eq!(
            resolved(
                "  #dbg_value(i32 %b, !7, !DIExpression(), !10)\n  \
                 %c = mul i32 %a, 3\n  \
                 #dbg_value(i32 %c, !7, !DIExpression(), !10)\n  \
                 %b = add i32 %c, 1\n  ret i32 %b\n"
            ),
            "%c = mul i32 %a, 3\n#dbg_value(i32 %c, !6, !DIExpression(), !8)\n\
             %b = add i32 %c, 1\nret i32 %b\n"
        );
    }
}
