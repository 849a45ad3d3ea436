//! What `dwarfsmith opt` and `compile -O1/-O2` ask of the optimiser.
//!
//! In: a verified module and an [`OptRequest`] (a level or a pass list,
//! printing, stopping and debugify choices). Out: the optimised module and
//! what the run reports on stderr (dumps, debugify checks) and in the
//! `--debugify-export` CSV.

use crate::ir::print::DebugSyntax;
use crate::ir::Module;

use super::{
    compile_pipeline, debugify, level_pipeline, parse_passes, run_pipeline, Pass, PipelineOptions,
};

/// One `opt` run's choices.
#[derive(Clone, Debug, Default)]
pub struct OptRequest {
    /// `-O1`/`-O2`/`-O3` (ignored when `passes` is given); `None` runs no pass.
    pub level: Option<u8>,
    /// `--passes=a,b,c`.
    pub passes: Option<String>,
    /// `--print-after-all`.
    pub print_after_all: bool,
    /// `--print-after=PASS` (repeatable).
    pub print_after: Vec<String>,
    /// `--stop-after=PASS`.
    pub stop_after: Option<String>,
    /// `--debugify`: synthetic debug info before the passes.
    pub debugify: bool,
    /// `--check-debugify`: report what the passes lost, after them.
    pub check_debugify: bool,
    /// `--debugify-each`: debugify before and check after every pass.
    pub debugify_each: bool,
    /// The debug syntax of printed dumps.
    pub syntax: DebugSyntax,
    /// `--assignment-tracking=false`: leave declare-to-assign out.
    pub no_assignment_tracking: bool,
}

/// What an `opt` run produced besides the module.
#[derive(Clone, Debug, Default)]
pub struct OptReport {
    /// Text for stderr: dumps and debugify reports, in order.
    pub messages: String,
    /// The `--debugify-export` CSV (header and a row per pass) with `debugify_each`.
    pub csv: Option<String>,
}

/// Runs the request on `module`; errors name `file`.
pub fn run_request(
    module: &mut Module,
    request: &OptRequest,
    file: &str,
) -> Result<OptReport, String> {
    let passes = match &request.passes {
        Some(list) => parse_passes(list).map_err(|e| format!("{file}: error: {e}"))?,
        None => request.level.map(level_pipeline).unwrap_or_default(),
    };
    let passes = with_assignment_tracking(passes, !request.no_assignment_tracking);
    for name in request.print_after.iter().chain(request.stop_after.iter()) {
        if super::pass_by_name(name).is_none() {
            return Err(format!("{file}: error: unknown pass '{name}'"));
        }
    }
    let mut report = OptReport::default();
    let state = request.debugify.then(|| debugify::apply(module, file));
    let options = PipelineOptions {
        print_after_all: request.print_after_all,
        print_after: request.print_after.clone(),
        stop_after: request.stop_after.clone(),
        debugify_each: request.debugify_each,
        verify_each: true,
        syntax: request.syntax,
        file_name: file.to_string(),
    };
    let pipeline = run_pipeline(module, &passes, &options)?;
    report.messages.push_str(&pipeline.dumps);
    if request.debugify_each {
        for (pass, check) in &pipeline.checks {
            report.messages.push_str(&check.text(pass));
        }
        report.csv = Some(pipeline.csv());
    }
    if request.check_debugify {
        match debugify::check(module, state.as_ref()) {
            Some(check) => report.messages.push_str(&check.text("")),
            None => report
                .messages
                .push_str("CheckModuleDebugify: Skipping module without debugify metadata\n"),
        }
    }
    Ok(report)
}

/// The pipeline without declare-to-assign when assignment tracking is off.
fn with_assignment_tracking(passes: Vec<&'static Pass>, on: bool) -> Vec<&'static Pass> {
    passes
        .into_iter()
        .filter(|p| on || p.name != "declare-to-assign")
        .collect()
}

/// The `compile -O1/-O2` pipeline: [`compile_pipeline`]'s passes (without
/// declare-to-assign when `assignment_tracking` is off), nothing printed.
/// As clang does when it optimises, every defined function's subprogram
/// then asks for its calls to be described (`DIFlagAllCallsDescribed`), so
/// the DWARF gets the call sites a debugger needs for entry values.
pub fn optimize(module: &mut Module, level: u8, assignment_tracking: bool) {
    let passes = with_assignment_tracking(compile_pipeline(module, level), assignment_tracking);
    super::run_passes(module, &passes);
    describe_all_calls(module);
}

/// Adds `DIFlagAllCallsDescribed` to the subprogram of every definition.
fn describe_all_calls(module: &mut Module) {
    const FLAG: &str = "DIFlagAllCallsDescribed";
    let subprograms: Vec<_> = module
        .functions
        .iter()
        .filter(|f| !f.is_declaration())
        .filter_map(|f| f.subprogram)
        .collect();
    for sp in subprograms {
        if let crate::ir::MdNode::Subprogram(subprogram) = module.debug.node_mut(sp) {
            if !subprogram.flags.iter().any(|f| f == FLAG) {
                subprogram.flags.push(FLAG.to_string());
            }
        }
    }
}
