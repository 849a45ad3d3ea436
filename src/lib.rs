//! dwarfsmith: LLVM IR text in, ELF x86-64 objects with DWARF 5 out.
//!
//! The pipeline (see ARCHITECTURE.md): parse → verify → gates (target,
//! unsupported constructs) → debug_prep → codegen → debuginfo → emit.

pub mod codegen;
pub mod debuginfo;
pub mod error;
pub mod ir;
pub mod linecheck;
pub mod loccheck;
pub mod opt;
pub mod output;
pub mod source_order;
pub mod stats;
pub mod x86;

use error::{Diagnostic, Pos};

/// How hard the optimiser works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    /// No optimisation: every value lives where clang -O0 IR puts it.
    O0,
    /// The short optimising pipeline (`opt::level_pipeline(1)`).
    O1,
    /// The optimising pipeline.
    O2,
}

pub use dwarfsmith_emit::write::DebuggerTune;

/// Everything `compile` needs to know besides the input.
#[derive(Clone, Copy, Debug)]
pub struct CompileOptions {
    /// Optimisation level.
    pub opt_level: OptLevel,
    /// Whether to emit DWARF.
    pub debug_info: bool,
    /// Which debugger the DWARF is tuned for.
    pub debugger_tune: DebuggerTune,
}

/// Compiles LLVM IR text to the bytes of an ELF x86-64 relocatable object.
pub fn compile(text: &str, file: &str, options: &CompileOptions) -> Result<Vec<u8>, Diagnostic> {
    compile_with(text, file, options, OptimiserOptions::default())
}

/// The optimiser's choices besides the level (`compile --assignment-tracking=false`).
#[derive(Clone, Copy, Debug)]
pub struct OptimiserOptions {
    /// Run declare-to-assign first at -O1/-O2 (on by default).
    pub assignment_tracking: bool,
}

impl Default for OptimiserOptions {
    fn default() -> Self {
        OptimiserOptions {
            assignment_tracking: true,
        }
    }
}

/// [`compile`] with the optimiser's choices.
pub fn compile_with(
    text: &str,
    file: &str,
    options: &CompileOptions,
    optimiser: OptimiserOptions,
) -> Result<Vec<u8>, Diagnostic> {
    let object = compile_to_model_with(text, file, options, optimiser)?;
    dwarfsmith_emit::write::write(&object, &write_options(options)).map_err(|error| Diagnostic {
        file: file.to_string(),
        pos: Pos::default(),
        message: error.to_string(),
    })
}

/// Compiles LLVM IR text to the object model the emit crate writes: code,
/// data and (with debug info) the DWARF description.
pub fn compile_to_model(
    text: &str,
    file: &str,
    options: &CompileOptions,
) -> Result<dwarfsmith_emit::model::ObjectModel, Diagnostic> {
    compile_to_model_with(text, file, options, OptimiserOptions::default())
}

/// [`compile_to_model`] with the optimiser's choices.
pub fn compile_to_model_with(
    text: &str,
    file: &str,
    options: &CompileOptions,
    optimiser: OptimiserOptions,
) -> Result<dwarfsmith_emit::model::ObjectModel, Diagnostic> {
    let mut module = parse_and_verify(text, file)?;
    codegen::target::check_target(&module, file)?;
    codegen::unsupported::check_module(&module, file)?;
    // Source order is recorded before the optimiser moves anything and
    // projected onto what it leaves (debug locations only, never code).
    let source = (options.debug_info && options.opt_level != OptLevel::O0)
        .then(|| source_order::record(&module));
    optimize_and_verify(&mut module, options.opt_level, optimiser, file)?;
    if let Some(source) = &source {
        source_order::project(&mut module, source);
    }
    if options.debug_info {
        // Debug records only: the code is the same with and without them.
        codegen::debug_prep::prepare(&mut module);
    }
    codegen::name_private_symbols(&mut module);
    let codegen_options = codegen::CodegenOptions {
        opt_level: options.opt_level,
        debug_info: options.debug_info,
    };
    let compiled = codegen::compile_module(&module, &codegen_options).map_err(|mut error| {
        error.file = file.to_string();
        error
    })?;
    let mut object = compiled.object;
    // A module without a compile unit has no debug information to describe
    // (as with llc): no DWARF sections, no line table.
    if options.debug_info && !module.compile_units().is_empty() {
        object.debug = Some(debuginfo::build(&module, &compiled.functions, &object.data));
    }
    Ok(object)
}

/// The emit crate's options for these compile options.
pub fn write_options(options: &CompileOptions) -> dwarfsmith_emit::write::WriteOptions {
    dwarfsmith_emit::write::WriteOptions {
        debugger_tune: options.debugger_tune,
    }
}

/// Parses, verifies and prints LLVM IR text back in the given debug syntax.
pub fn opt(text: &str, file: &str, syntax: ir::print::DebugSyntax) -> Result<String, Diagnostic> {
    let module = parse_and_verify(text, file)?;
    Ok(ir::print::print_module(&module, syntax))
}

/// Runs the optimiser's pipeline for `level` (none at -O0) and checks the
/// result; an invalid result is an internal error naming the file.
fn optimize_and_verify(
    module: &mut ir::Module,
    level: OptLevel,
    optimiser: OptimiserOptions,
    file: &str,
) -> Result<(), Diagnostic> {
    let level = match level {
        OptLevel::O0 => return Ok(()),
        OptLevel::O1 => 1,
        OptLevel::O2 => 2,
    };
    opt::command::optimize(module, level, optimiser.assignment_tracking);
    ir::verify::verify_module(module).map_err(|mut error| {
        error.file = file.to_string();
        error.message = format!(
            "internal error: the optimised module is invalid: {}",
            error.message
        );
        error
    })
}

/// Parses a module and checks its invariants; errors name `file`.
pub fn parse_and_verify(text: &str, file: &str) -> Result<ir::Module, Diagnostic> {
    let module = ir::parse::parse_module(text, file)?;
    ir::verify::verify_module(&module).map_err(|mut error| {
        error.file = file.to_string();
        error
    })?;
    Ok(module)
}
