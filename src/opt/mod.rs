//! The optimiser: a deterministic pass manager, the passes, and the
//! debug-info utilities they share.
//!
//! In: a verified [`Module`] (typically clang -O0 IR). Out: the same module
//! optimised, still verified, with its debug records updated by LLVM's
//! rules (see [`debug_update`]): each pass names in its opening doc comment
//! whether it preserves, merges or drops locations and how it keeps debug
//! values when it deletes code. Passes run function by function in module
//! order, and each pass walks blocks and instructions in layout order, so
//! the same input always gives the same output.
//!
//! [`debugify`] gives a module synthetic debug info and counts what a pass
//! lost; [`run_pipeline`] can apply it before and check it after every pass
//! (`--debugify-each`).

pub mod command;
pub mod debug_update;
pub mod debugify;
pub mod edit;

mod dce;
mod declare_to_assign;
mod dse;
mod early_cse;
mod inline;
mod instcombine;
mod licm;
mod loop_rotate;
mod loops;
mod lsr;
mod mem2reg;
mod mldst_motion;
mod simplifycfg;
mod sink;
mod split_backedges;
mod sroa;

use crate::ir::print::{print_module, DebugSyntax};
use crate::ir::{ConstExpr, Constant, FuncId, Function, Intrinsic, Module, Value};

/// What a pass sees besides the function it changes: the module without
/// its functions (metadata arenas, struct layouts, globals) and which
/// intrinsic each function of the module is, by function index.
pub struct PassCx<'a> {
    /// The module, with its function list taken out while a pass runs.
    pub module: &'a mut Module,
    /// The intrinsic each function is (by [`crate::ir::FuncId`] index), if any.
    pub intrinsics: &'a [Option<Intrinsic>],
    /// The module's functions as they were before the pass (for passes with
    /// [`Pass::needs_bodies`]; empty otherwise).
    pub bodies: &'a [Function],
}

impl PassCx<'_> {
    /// The intrinsic a callee value names, if it is a direct call of one.
    pub fn intrinsic(&self, callee: &Value) -> Option<Intrinsic> {
        match callee {
            Value::Const(crate::ir::Constant::Global(crate::ir::GlobalRef::Func(id))) => {
                self.intrinsics.get(id.0 as usize).copied().flatten()
            }
            _ => None,
        }
    }
}

/// One pass: its name on the command line, and the function that runs it on
/// one function definition (returning whether it changed anything).
pub struct Pass {
    /// The name `--passes=` and `--print-after=` use.
    pub name: &'static str,
    /// Runs the pass on one function.
    pub run: fn(&mut PassCx, &mut Function) -> bool,
    /// Whether the pass reads other functions' bodies ([`PassCx::bodies`]).
    pub needs_bodies: bool,
}

/// Every pass, by name.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "declare-to-assign",
        run: declare_to_assign::run,
        needs_bodies: false,
    },
    Pass {
        name: "sroa",
        run: sroa::run,
        needs_bodies: false,
    },
    Pass {
        name: "mem2reg",
        run: mem2reg::run,
        needs_bodies: false,
    },
    Pass {
        name: "instcombine",
        run: instcombine::run,
        needs_bodies: false,
    },
    Pass {
        name: "simplifycfg",
        run: simplifycfg::run,
        needs_bodies: false,
    },
    Pass {
        name: "speculate-diamonds",
        run: simplifycfg::run_speculate,
        needs_bodies: false,
    },
    Pass {
        name: "inline",
        run: inline::run,
        needs_bodies: true,
    },
    Pass {
        name: "early-cse",
        run: early_cse::run,
        needs_bodies: false,
    },
    Pass {
        name: "licm",
        run: licm::run,
        needs_bodies: false,
    },
    Pass {
        name: "loop-rotate",
        run: loop_rotate::run,
        needs_bodies: false,
    },
    Pass {
        name: "lsr",
        run: lsr::run,
        needs_bodies: false,
    },
    Pass {
        name: "dce",
        run: dce::run,
        needs_bodies: false,
    },
    Pass {
        name: "dse",
        run: dse::run,
        needs_bodies: false,
    },
    Pass {
        name: "sink",
        run: sink::run,
        needs_bodies: false,
    },
    Pass {
        name: "mldst-motion",
        run: mldst_motion::run,
        needs_bodies: false,
    },
    Pass {
        name: "hoist-common",
        run: simplifycfg::run_hoist,
        needs_bodies: false,
    },
    Pass {
        name: "tail-dup",
        run: simplifycfg::run_tail_dup,
        needs_bodies: false,
    },
    Pass {
        name: "split-backedges",
        run: split_backedges::run,
        needs_bodies: false,
    },
];

/// The passes of `-O1`.
const O1: &[&str] = &[
    "declare-to-assign",
    "mem2reg",
    "instcombine",
    "simplifycfg",
    "hoist-common",
    "sink",
    "dce",
];
/// The passes of `-O2` (and `-O3`). `tail-dup` is not among them: on
/// -O0 IR it copies the shared return block's `ret` into the blocks that
/// branch to it, `source_order` then takes that `ret`'s origin (the return
/// block) as each such block's home, and the statements before it count as
/// moved and lose is_stmt (gdb could no longer stop on them: the
/// e2e_variables walk of recursion.c stopped 150 times instead of 450).
const O2: &[&str] = &[
    "declare-to-assign",
    "sroa",
    "mem2reg",
    "instcombine",
    "simplifycfg",
    "inline",
    "instcombine",
    "simplifycfg",
    "hoist-common",
    "mldst-motion",
    "speculate-diamonds",
    "loop-rotate",
    "early-cse",
    "dse",
    "licm",
    "lsr",
    "licm",
    "dce",
    "instcombine",
    "sink",
    "simplifycfg",
    "dce",
    "split-backedges",
];

/// The passes `compile -O2` runs on IR an optimiser already optimised
/// ([`already_optimized`]), as llc-19 runs only its codegen-preparing IR
/// passes on such IR: the middle end ran there, and running ours again
/// cost as much compile time as all of code generation. What these do,
/// our code generation needs: loop strength reduction, hoisting what it
/// leaves invariant, split critical back edges, and the cheap cleanups
/// (instcombine, early-cse) that LLVM's own codegen passes would do; with
/// them every `fixtures/ll/*.O2*.ll` object is byte-identical to the full
/// pipeline's (without them 25 of 44 differ). declare-to-assign is left out:
/// an optimiser already tracked the assignments it could (it changed no
/// corpus or real-world object). ARCHITECTURE.md "Facts measured" has the
/// compile and run times of both choices.
const O2_PREPARE: &[&str] = &[
    "instcombine",
    "early-cse",
    "lsr",
    "licm",
    "dce",
    "split-backedges",
];

/// The pass with this name.
pub fn pass_by_name(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// The pipeline of an optimisation level (0 gives no passes).
pub fn level_pipeline(level: u8) -> Vec<&'static Pass> {
    let names: &[&str] = match level {
        0 => &[],
        1 => O1,
        _ => O2,
    };
    names.iter().filter_map(|n| pass_by_name(n)).collect()
}

/// Whether `module` comes from an optimiser: it has compile units, every
/// one says `isOptimized: true`, and no function definition is `optnone`.
/// A module without debug information cannot tell, and counts as not
/// optimised (the full pipeline is the safe choice).
pub fn already_optimized(module: &Module) -> bool {
    let units = module.compile_units();
    !units.is_empty()
        && units.iter().all(|&unit| {
            matches!(module.debug.node(unit), crate::ir::MdNode::CompileUnit(cu) if cu.is_optimized)
        })
        && module
            .functions
            .iter()
            .all(|f| f.is_declaration() || !has_function_attr(module, f, "optnone"))
}

/// The pipeline of `compile` at `level` for `module`: [`level_pipeline`],
/// except that `-O2` on an [`already_optimized`] module runs the
/// codegen-preparing passes only.
pub fn compile_pipeline(module: &Module, level: u8) -> Vec<&'static Pass> {
    if level >= 2 && already_optimized(module) {
        return O2_PREPARE.iter().filter_map(|n| pass_by_name(n)).collect();
    }
    level_pipeline(level)
}

/// Whether `function` has the attribute `name`, written inline or in one of
/// its attribute groups.
pub fn has_function_attr(module: &Module, function: &Function, name: &str) -> bool {
    let attrs = &function.attrs;
    attrs.inline_attrs.iter().any(|a| a == name)
        || module
            .attribute_groups
            .iter()
            .filter(|g| attrs.attribute_groups.contains(&g.number))
            .any(|g| g.attrs.iter().any(|a| a == name))
}

/// The pipeline `--passes=a,b,c` names; an unknown name is an error naming it.
pub fn parse_passes(list: &str) -> Result<Vec<&'static Pass>, String> {
    list.split(',')
        .filter(|n| !n.is_empty())
        .map(|n| {
            pass_by_name(n).ok_or_else(|| {
                let known: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
                format!("unknown pass '{n}' (known: {})", known.join(", "))
            })
        })
        .collect()
}

/// How [`run_pipeline`] reports between passes.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Print the module after every pass.
    pub print_after_all: bool,
    /// Print the module after the passes with these names.
    pub print_after: Vec<String>,
    /// Stop after the first pass with this name.
    pub stop_after: Option<String>,
    /// Debugify before and check after every pass.
    pub debugify_each: bool,
    /// Verify the module after every pass (an error names the pass).
    pub verify_each: bool,
    /// The debug syntax of printed dumps.
    pub syntax: DebugSyntax,
    /// The input's name (for debugify's DIFile and messages).
    pub file_name: String,
}

/// What [`run_pipeline`] printed and found.
#[derive(Clone, Debug, Default)]
pub struct PipelineReport {
    /// `; *** IR Dump After PASS ***` dumps, in order.
    pub dumps: String,
    /// With `debugify_each`: each pass's name and its debugify check.
    pub checks: Vec<(String, debugify::CheckReport)>,
}

impl PipelineReport {
    /// The `--debugify-export` CSV: LLVM's header and one row per pass.
    pub fn csv(&self) -> String {
        let mut out = String::from(debugify::CSV_HEADER);
        out.push('\n');
        for (pass, report) in &self.checks {
            out.push_str(&report.csv_row(pass));
            out.push('\n');
        }
        out
    }
}

/// Runs `passes` over every function definition of `module`, in order.
pub fn run_pipeline(
    module: &mut Module,
    passes: &[&'static Pass],
    options: &PipelineOptions,
) -> Result<PipelineReport, String> {
    let mut report = PipelineReport::default();
    // Neither the passes nor debugify make a `blockaddress` constant.
    let block_addresses = has_block_addresses(module);
    for pass in passes {
        let state = options
            .debugify_each
            .then(|| debugify::apply(module, &options.file_name));
        run_pass(module, pass, block_addresses);
        if let Some(state) = &state {
            if let Some(check) = debugify::check(module, Some(state)) {
                report.checks.push((pass.name.to_string(), check));
            }
        }
        if options.verify_each {
            crate::ir::verify::verify_module(module).map_err(|e| {
                format!(
                    "{}: error: the module is invalid after pass {}: {}",
                    options.file_name, pass.name, e.message
                )
            })?;
        }
        if options.print_after_all || options.print_after.iter().any(|p| p == pass.name) {
            report
                .dumps
                .push_str(&format!("; *** IR Dump After {} ***\n", pass.name));
            report.dumps.push_str(&print_module(module, options.syntax));
        }
        if options.stop_after.as_deref() == Some(pass.name) {
            break;
        }
    }
    if options.debugify_each {
        debugify::strip(module);
    }
    Ok(report)
}

/// The functions some `blockaddress` constant names, in a global's
/// initialiser or an instruction's operand.
fn block_addressed_functions(module: &Module, functions: &[Function]) -> Vec<FuncId> {
    fn collect(constant: &Constant, out: &mut Vec<FuncId>) {
        match constant {
            Constant::BlockAddress { func, .. } => out.push(*func),
            Constant::Vector { elems, .. } | Constant::Array { elems, .. } => {
                elems.iter().for_each(|c| collect(c, out))
            }
            Constant::Struct { fields, .. } => fields.iter().for_each(|c| collect(c, out)),
            Constant::Expr(expr) => match expr.as_ref() {
                ConstExpr::Gep { base, indices, .. } => {
                    collect(base, out);
                    indices.iter().for_each(|c| collect(c, out));
                }
                ConstExpr::Binary { lhs, rhs, .. } => {
                    collect(lhs, out);
                    collect(rhs, out);
                }
                ConstExpr::Cast { value, .. } => collect(value, out),
            },
            _ => {}
        }
    }
    let mut out = Vec::new();
    for global in &module.globals {
        if let Some(init) = &global.initializer {
            collect(init, &mut out);
        }
    }
    for function in functions {
        for inst in &function.insts {
            for operand in inst.operands() {
                if let Value::Const(c) = operand {
                    collect(c, &mut out);
                }
            }
        }
    }
    out
}

/// Whether any `blockaddress` constant is in the module: when none is, no
/// pass makes one (passes only move, copy or delete constants), so
/// [`run_passes`] need not look again before each pass.
fn has_block_addresses(module: &Module) -> bool {
    !block_addressed_functions(module, &module.functions).is_empty()
}

/// Runs `passes` in order over every function definition.
pub fn run_passes(module: &mut Module, passes: &[&Pass]) {
    let block_addresses = has_block_addresses(module);
    for pass in passes {
        run_pass(module, pass, block_addresses);
    }
}

/// Runs one pass over every function definition, in module order;
/// `block_addresses` says whether the module may hold `blockaddress`
/// constants ([`has_block_addresses`]).
fn run_pass(module: &mut Module, pass: &Pass, block_addresses: bool) -> bool {
    let mut functions = std::mem::take(&mut module.functions);
    let intrinsics: Vec<Option<Intrinsic>> = functions
        .iter()
        .map(|f| Intrinsic::from_name(&f.name))
        .collect();
    let bodies = if pass.needs_bodies {
        functions.clone()
    } else {
        Vec::new()
    };
    let mut cx = PassCx {
        module,
        intrinsics: &intrinsics,
        bodies: &bodies,
    };
    let mut changed = false;
    let block_addressed = if block_addresses {
        block_addressed_functions(cx.module, &functions)
    } else {
        Vec::new()
    };
    for (index, function) in functions.iter_mut().enumerate() {
        // A function whose blocks are named by `blockaddress` constants
        // (computed goto) is left as it is: passes renumber and remove
        // blocks, and those constants (in globals too) would name others.
        if function.is_declaration() || block_addressed.contains(&FuncId(index as u32)) {
            continue;
        }
        changed |= (pass.run)(&mut cx, function);
    }
    module.functions = functions;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with one compile unit (`isOptimized: OPTIMIZED`) and one
    /// function with attribute group `#0 = { ATTRS }`.
    fn module(optimized: bool, attrs: &str) -> Module {
        let text = format!(
            r#"define i32 @f(i32 %x) #0 !dbg !5 {{
  %y = add i32 %x, 1
  ret i32 %y
}}

attributes #0 = {{ {attrs} }}

!llvm.dbg.cu = !{{!0}}
!llvm.module.flags = !{{!3, !4}}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: {optimized}, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "f.c", directory: "/tmp")
!3 = !{{i32 7, !"Dwarf Version", i32 5}}
!4 = !{{i32 2, !"Debug Info Version", i32 3}}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{{null}}
"#
        );
        crate::parse_and_verify(&text, "f.ll").unwrap()
    }

    fn names(passes: &[&Pass]) -> Vec<&'static str> {
        passes.iter().map(|p| p.name).collect()
    }

    #[test]
    fn optimised_ir_gets_the_codegen_preparing_passes_at_o2() {
        let optimised = module(true, "nounwind");
        assert!(already_optimized(&optimised));
        assert_eq!(
            names(&compile_pipeline(&optimised, 2)),
            [
                "instcombine",
                "early-cse",
                "lsr",
                "licm",
                "dce",
                "split-backedges"
            ]
        );
        assert_eq!(names(&compile_pipeline(&optimised, 1)), O1);
    }

    #[test]
    fn unoptimised_optnone_or_undescribed_ir_gets_the_full_pipeline() {
        let unoptimised = module(false, "nounwind");
        let optnone = module(true, "noinline nounwind optnone");
        let mut undescribed = module(true, "nounwind");
        undescribed
            .named_metadata
            .retain(|n| n.name != "llvm.dbg.cu");
        for m in [&unoptimised, &optnone, &undescribed] {
            assert!(!already_optimized(m));
            assert_eq!(names(&compile_pipeline(m, 2)), O2);
        }
    }
}
