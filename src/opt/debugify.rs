//! Debugify: synthetic debug info that makes every lost location and
//! variable countable, as LLVM's `-debugify` / `-check-debugify` do.
//!
//! In: any module. Out of [`apply`]: the module with its debug records and
//! instruction locations replaced: every placed instruction gets line 1, 2,
//! 3… (in order over the whole module, column 1, in its function's
//! DISubprogram, created when missing), and every value-producing
//! instruction gets a `#dbg_value` of a variable named 1, 2, … right after
//! it (after the last phi for phis); `!llvm.debugify = !{!{i32 lines},
//! !{i32 variables}}` records the counts. Out of [`check`]: what a pass lost,
//! in LLVM's wording (`WARNING: Missing line N`, `WARNING: Missing variable
//! N`, `CheckModuleDebugify [PASS]: PASS`).
//!
//! What counts as lost (documented difference from LLVM, which counts every
//! line whose instruction was deleted and every variable with any record):
//! a *missing location* is a line whose instruction is still in the function
//! but no longer carries it (a merge to line 0 or a drop), or any line no
//! instruction carries when the original owners are unknown (a module read
//! back from text); a *missing debug value* is a variable no record gives a
//! defined location any more (`poison` counts as missing), so salvage shows.

use crate::ir::debug::{
    DIBasicType, DICompileUnit, DIFile, DILocalVariable, DISubprogram, DISubroutineType,
};
use crate::ir::print::LocalNames;
use crate::ir::{
    Constant, DIExpression, DILocation, DebugRecord, ExprOp, InstId, InstKind, MdId, MdNode,
    MdOperand, MdRef, Module, NamedMetadata, RecordKind, Type,
};

/// Which instruction got each synthetic line (for telling a dropped
/// location from a deleted instruction).
#[derive(Clone, Debug, Default)]
pub struct DebugifyState {
    /// `(function index, instruction)` per line, line 1 first.
    pub line_owners: Vec<(usize, InstId)>,
    /// How many variables were made.
    pub variables: usize,
}

/// What [`check`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    /// Lines expected (`!llvm.debugify` first operand).
    pub expected_lines: usize,
    /// Variables expected (second operand).
    pub expected_variables: usize,
    /// Missing lines, ascending.
    pub missing_lines: Vec<u32>,
    /// Missing variables, ascending.
    pub missing_variables: Vec<u32>,
    /// `WARNING: Instruction with empty DebugLoc ...` lines.
    pub empty_locations: Vec<String>,
}

impl CheckReport {
    /// The report in LLVM's wording, ending with the banner line for `pass`
    /// (`CheckModuleDebugify [mem2reg]: PASS`; no brackets when `pass` is empty).
    pub fn text(&self, pass: &str) -> String {
        let mut out = String::new();
        for warning in &self.empty_locations {
            out.push_str(warning);
            out.push('\n');
        }
        for line in &self.missing_lines {
            out.push_str(&format!("WARNING: Missing line {line}\n"));
        }
        for var in &self.missing_variables {
            out.push_str(&format!("WARNING: Missing variable {var}\n"));
        }
        out.push_str("CheckModuleDebugify");
        if !pass.is_empty() {
            out.push_str(&format!(" [{pass}]"));
        }
        let fail = !self.empty_locations.is_empty();
        out.push_str(if fail { ": FAIL\n" } else { ": PASS\n" });
        out
    }

    /// One row of the `--debugify-export` CSV for `pass`, in LLVM's columns.
    pub fn csv_row(&self, pass: &str) -> String {
        let ratio = |missing: usize, expected: usize| {
            if expected == 0 {
                0.0
            } else {
                missing as f64 / expected as f64
            }
        };
        format!(
            "{pass},{},{},{},{}",
            self.missing_variables.len(),
            self.missing_lines.len(),
            c_exponent(ratio(self.missing_variables.len(), self.expected_variables)),
            c_exponent(ratio(self.missing_lines.len(), self.expected_lines))
        )
    }
}

/// A ratio as C's `%e` prints it (`4.285714e-01`), as LLVM's CSV has it.
fn c_exponent(value: f64) -> String {
    let text = format!("{value:.6e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// The CSV header LLVM's `-debugify-export` writes.
pub const CSV_HEADER: &str = "Pass Name,# of missing debug values,# of missing locations,Missing/Expected value ratio,Missing/Expected location ratio";

/// Replaces the module's debug records and locations by synthetic ones (see
/// the module doc) and returns which instruction owns each line.
pub fn apply(module: &mut Module, file_name: &str) -> DebugifyState {
    let unit = ensure_unit(module, file_name);
    let mut state = DebugifyState::default();
    let mut basic_types: Vec<(u64, MdId)> = Vec::new();
    for f in 0..module.functions.len() {
        if module.functions[f].is_declaration() {
            continue;
        }
        let subprogram = match module.functions[f].subprogram {
            Some(sp) => sp,
            None => {
                let sp = new_subprogram(module, unit, f);
                module.functions[f].subprogram = Some(sp);
                sp
            }
        };
        let file = module.debug.subprogram(subprogram).and_then(|s| s.file);
        let placed: Vec<InstId> = module.functions[f]
            .blocks
            .iter()
            .flat_map(|b| b.insts.clone())
            .collect();
        for &id in &placed {
            let inst = module.functions[f].inst_mut(id);
            inst.records.clear();
            inst.assign_id = None;
        }
        let mut pending: Vec<DebugRecord> = Vec::new();
        for block in 0..module.functions[f].blocks.len() {
            let insts = module.functions[f].blocks[block].insts.clone();
            for &id in &insts {
                let line = state.line_owners.len() as u32 + 1;
                state.line_owners.push((f, id));
                let loc = module.debug.intern_location(DILocation {
                    line,
                    column: 1,
                    scope: subprogram,
                    inlined_at: None,
                    implicit_code: false,
                    distinct: false,
                    atom_group: 0,
                    atom_rank: 0,
                });
                let is_phi = matches!(module.functions[f].inst(id).kind, InstKind::Phi { .. });
                if !is_phi {
                    let records = std::mem::take(&mut pending);
                    module.functions[f].inst_mut(id).records = records;
                }
                module.functions[f].inst_mut(id).dbg = Some(loc);
                let ty = module.functions[f].inst(id).ty.clone();
                if ty.is_void() {
                    continue;
                }
                state.variables += 1;
                let bits = match &ty {
                    Type::Int(b) => *b as u64,
                    other => module.size_of(other) * 8,
                };
                let basic = match basic_types.iter().find(|(b, _)| *b == bits) {
                    Some((_, id)) => *id,
                    None => {
                        let id = module.debug.add_node(
                            false,
                            MdNode::BasicType(DIBasicType {
                                tag: None,
                                name: format!("ty{bits}"),
                                size: bits,
                                align: None,
                                encoding: Some("DW_ATE_unsigned".into()),
                                flags: Vec::new(),
                            }),
                        );
                        basic_types.push((bits, id));
                        id
                    }
                };
                let variable = module.debug.add_node(
                    false,
                    MdNode::LocalVariable(DILocalVariable {
                        name: state.variables.to_string(),
                        arg: None,
                        scope: subprogram,
                        file,
                        line,
                        ty: Some(basic),
                        flags: Vec::new(),
                        align: None,
                    }),
                );
                let expr = module.debug.intern_expr(DIExpression {
                    ops: vec![ExprOp::Arg(0)],
                });
                pending.push(DebugRecord {
                    kind: RecordKind::Value,
                    variable,
                    locations: vec![crate::ir::Value::Inst(id)],
                    expr,
                    loc,
                    assign: None,
                });
            }
        }
    }
    let count = |module: &mut Module, n: usize| {
        MdRef::Node(module.debug.add_node(
            false,
            MdNode::Tuple(vec![MdOperand::Value(Constant::int(32, n as i128))]),
        ))
    };
    let lines = count(module, state.line_owners.len());
    let vars = count(module, state.variables);
    module.named_metadata.retain(|n| n.name != "llvm.debugify");
    module.named_metadata.push(NamedMetadata {
        name: "llvm.debugify".into(),
        nodes: vec![lines, vars],
    });
    state
}

/// The module's compile unit, made (with its file, `!llvm.dbg.cu` and the
/// "Debug Info Version" flag) when it has none.
fn ensure_unit(module: &mut Module, file_name: &str) -> MdId {
    if let Some(&cu) = module.compile_units().first() {
        return cu;
    }
    let file = module.debug.add_node(
        false,
        MdNode::File(DIFile {
            filename: file_name.to_string(),
            directory: "/".into(),
            checksum: None,
            source: None,
        }),
    );
    let cu = module.debug.add_node(
        true,
        MdNode::CompileUnit(DICompileUnit {
            language: "DW_LANG_C".into(),
            file: Some(file),
            producer: Some("debugify".into()),
            is_optimized: true,
            emission_kind: Some("FullDebug".into()),
            enums: None,
            retained_types: None,
            globals: None,
            other: Vec::new(),
        }),
    );
    module.named_metadata.retain(|n| n.name != "llvm.dbg.cu");
    module.named_metadata.push(NamedMetadata {
        name: "llvm.dbg.cu".into(),
        nodes: vec![MdRef::Node(cu)],
    });
    if module.module_flag("Debug Info Version").is_none() {
        let flag = module.debug.add_node(
            false,
            MdNode::Tuple(vec![
                MdOperand::Value(Constant::int(32, 2)),
                MdOperand::Str("Debug Info Version".into()),
                MdOperand::Value(Constant::int(32, 3)),
            ]),
        );
        match module
            .named_metadata
            .iter_mut()
            .find(|n| n.name == "llvm.module.flags")
        {
            Some(flags) => flags.nodes.push(MdRef::Node(flag)),
            None => module.named_metadata.push(NamedMetadata {
                name: "llvm.module.flags".into(),
                nodes: vec![MdRef::Node(flag)],
            }),
        }
    }
    cu
}

/// A DISubprogram for function `f`, as LLVM's debugify makes it.
fn new_subprogram(module: &mut Module, unit: MdId, f: usize) -> MdId {
    let file = match module.debug.node(unit) {
        MdNode::CompileUnit(cu) => cu.file,
        _ => None,
    };
    let types = module.debug.add_node(false, MdNode::Tuple(Vec::new()));
    let ty = module.debug.add_node(
        false,
        MdNode::SubroutineType(DISubroutineType {
            flags: Vec::new(),
            cc: None,
            types: Some(types),
        }),
    );
    let name = module.functions[f].name.clone();
    module.debug.add_node(
        true,
        MdNode::Subprogram(DISubprogram {
            name: name.clone(),
            linkage_name: Some(name),
            scope: None,
            file,
            line: 1,
            ty: Some(ty),
            scope_line: 1,
            flags: Vec::new(),
            sp_flags: vec!["DISPFlagDefinition".into(), "DISPFlagOptimized".into()],
            unit: Some(unit),
            retained_nodes: None,
            declaration: None,
            other: Vec::new(),
        }),
    )
}

/// The `!llvm.debugify` counts (lines, variables), if the module has them.
fn debugify_counts(module: &Module) -> Option<(usize, usize)> {
    let named = module.named_metadata("llvm.debugify")?;
    let count = |r: &MdRef| match r {
        MdRef::Node(id) => match module.debug.tuple(*id) {
            [MdOperand::Value(Constant::Int { value, .. })] => Some(*value as usize),
            _ => None,
        },
        _ => None,
    };
    Some((count(named.nodes.first()?)?, count(named.nodes.get(1)?)?))
}

/// Checks a debugified module: which lines and variables are gone (see the
/// module doc for what counts). `state` is what [`apply`] returned, when
/// the module was debugified in this process. `None` when the module has
/// no `!llvm.debugify` counts.
pub fn check(module: &Module, state: Option<&DebugifyState>) -> Option<CheckReport> {
    let (lines, variables) = debugify_counts(module)?;
    let mut report = CheckReport {
        expected_lines: lines,
        expected_variables: variables,
        ..CheckReport::default()
    };
    let mut line_seen = vec![false; lines];
    let mut var_seen = vec![false; variables];
    let mut placed_sets: Vec<Vec<bool>> = Vec::new();
    for function in &module.functions {
        let mut placed = vec![false; function.insts.len()];
        let names = LocalNames::assign(function);
        for block in &function.blocks {
            for &id in &block.insts {
                placed[id.0 as usize] = true;
                let inst = function.inst(id);
                match inst.dbg.map(|l| module.debug.location(l).line) {
                    Some(line) if line != 0 => {
                        if let Some(seen) = line_seen.get_mut(line as usize - 1) {
                            *seen = true;
                        }
                    }
                    Some(_) => {}
                    None if matches!(inst.kind, InstKind::Phi { .. }) => {}
                    None => report.empty_locations.push(format!(
                        "WARNING: Instruction with empty DebugLoc in function {} --  {}",
                        function.name,
                        describe(&names, function, id)
                    )),
                }
                for record in &inst.records {
                    if record.kind != RecordKind::Value
                        || record.locations.iter().any(|l| l.is_undef_or_poison())
                    {
                        continue;
                    }
                    let name = module
                        .debug
                        .variable(record.variable)
                        .map(|v| v.name.as_str());
                    if let Some(n) = name.and_then(|n| n.parse::<usize>().ok()) {
                        if let Some(seen) = var_seen.get_mut(n.wrapping_sub(1)) {
                            *seen = true;
                        }
                    }
                }
            }
        }
        placed_sets.push(placed);
    }
    for (i, seen) in line_seen.iter().enumerate() {
        if *seen {
            continue;
        }
        let owner_alive = match state.and_then(|s| s.line_owners.get(i)) {
            Some(&(f, id)) => placed_sets
                .get(f)
                .is_some_and(|p| p.get(id.0 as usize).copied().unwrap_or(false)),
            None => true,
        };
        if owner_alive {
            report.missing_lines.push(i as u32 + 1);
        }
    }
    report.missing_variables = var_seen
        .iter()
        .enumerate()
        .filter(|(_, seen)| !**seen)
        .map(|(i, _)| i as u32 + 1)
        .collect();
    Some(report)
}

/// `%3 = add` style text of an instruction for a warning.
fn describe(names: &LocalNames, function: &crate::ir::Function, id: InstId) -> String {
    let inst = function.inst(id);
    let op = inst.kind.opcode();
    match names.insts.get(id.0 as usize).cloned().flatten() {
        Some(name) => format!("{name} = {op}"),
        None => op.to_string(),
    }
}

/// Removes every debug record and instruction location (LLVM's strip after
/// a check), keeping the metadata nodes.
pub fn strip(module: &mut Module) {
    for function in &mut module.functions {
        for inst in &mut function.insts {
            inst.records.clear();
            inst.dbg = None;
        }
        function.subprogram = None;
    }
    module.named_metadata.retain(|n| n.name != "llvm.debugify");
}
