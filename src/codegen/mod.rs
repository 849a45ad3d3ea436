//! IR → MIR → machine code, and the variable-location machinery.
//!
//! ```text
//! ir::Function ──isel──▶ mir::Function (vregs, DbgValue) ──pipeline::finish_function──▶
//!   final MIR + offsets + code ──history──▶ variable ranges
//!                              └─line_table─▶ line rows
//! ```
//!
//! In: a parsed (and possibly optimised) [`ir::Module`]. Out: a
//! [`CompiledModule`]: the object model's functions and data (no DWARF: the
//! caller builds DIEs from the IR's metadata and the per-function
//! [`FunctionDebug`]), and for each function its line rows and variable
//! ranges in code offsets. Promise: the machine code does not depend on
//! `debug_info` (byte-identical `.text`); functions appear in the order of
//! the module's definitions.

pub mod block_placement;
pub mod call_sites;
pub mod debug_prep;
mod exception_table;
pub mod frame;
pub mod history;
pub mod isel;
pub mod line_table;
pub mod live_debug_values;
pub mod liveness;
pub mod loop_depth;
pub mod loop_split;
pub mod mir;
pub mod mir_debugify;
pub mod peephole;
pub mod pipeline;
pub mod regalloc;
pub mod reload_hoist;
pub mod slot_forwarding;
pub mod symbol_cse;
pub mod target;
#[cfg(test)]
mod test_support;
pub mod unsupported;
pub mod zext;

use dwarfsmith_emit::model::ObjectModel;

use crate::error::Diagnostic;
use crate::ir;
use pipeline::{finish_function, FinishOptions};

pub use history::VariableRange;
pub use line_table::LineEntry;

/// How to compile.
#[derive(Clone, Copy, Debug)]
pub struct CodegenOptions {
    /// Optimisation level (the selector treats both alike for now).
    pub opt_level: crate::OptLevel,
    /// Follow debug records to produce line rows and variable ranges.
    pub debug_info: bool,
}

/// A compiled module: the object's code and data, and what the DWARF
/// builder needs per function.
#[derive(Clone, Debug)]
pub struct CompiledModule {
    /// Functions and data; `debug` is `None` (the caller fills it).
    pub object: ObjectModel,
    /// Parallel to `object.functions`.
    pub functions: Vec<FunctionDebug>,
}

/// Per function: where it came from, its line rows and variable ranges.
#[derive(Clone, Debug)]
pub struct FunctionDebug {
    /// Index of the IR function in `module.functions`.
    pub ir_function: usize,
    /// Line rows in address order (empty without debug info).
    pub line_entries: Vec<LineEntry>,
    /// Variable locations over code offsets (empty without debug info).
    pub variable_ranges: Vec<VariableRange>,
    /// Size of the function's code in bytes.
    pub code_size: u64,
    /// Its calls and tail calls, in code order (empty without debug info).
    pub call_sites: Vec<call_sites::CallSite>,
}

/// Gives every `private` global and function the ELF name `.L<name>`, as
/// llc's assembler label: the static linker drops such local symbols, so a
/// debugger shows a pointer into a string literal as an address, not as
/// `<str>` (a name the source never had).
pub fn name_private_symbols(module: &mut ir::Module) {
    let private = |linkage: ir::Linkage, name: &str| {
        linkage == ir::Linkage::Private && !name.starts_with(".L")
    };
    // An implicit `comdat` names the group after the symbol: it keeps the
    // source name.
    let rename = |name: &mut String, comdat: &mut Option<Option<String>>| {
        if let Some(group @ None) = comdat {
            *group = Some(name.clone());
        }
        *name = format!(".L{name}");
    };
    for global in &mut module.globals {
        if private(global.linkage, &global.name) {
            rename(&mut global.name, &mut global.attrs.comdat);
        }
    }
    for function in &mut module.functions {
        if private(function.linkage, &function.name) {
            rename(&mut function.name, &mut function.attrs.comdat);
        }
    }
}

/// Compiles every function definition and global variable of `module`.
/// A diagnostic's `file` is left empty: the caller knows the input's name.
pub fn compile_module(
    module: &ir::Module,
    options: &CodegenOptions,
) -> Result<CompiledModule, Diagnostic> {
    let mut object = ObjectModel {
        data: isel::select_data(module)?,
        weak_references: isel::weak_references(module),
        ..ObjectModel::default()
    };
    let mut functions = Vec::new();
    // Per IR function: its index in `object.functions` and the code offset
    // of each of its IR blocks (for `blockaddress` in data).
    let mut block_offsets: Vec<Option<(usize, Vec<u64>)>> = vec![None; module.functions.len()];
    let isel_options = isel::IselOptions {
        debug_info: options.debug_info,
    };
    // The functions declared `nounwind`: calls of anything else may throw
    // (exception tables need a call-site entry around them).
    let nounwind: std::collections::HashSet<&str> = module
        .functions
        .iter()
        .filter(|f| crate::opt::has_function_attr(module, f, "nounwind"))
        .map(|f| f.name.as_str())
        .collect();
    let mut pointer_objects = exception_table::PointerObjects::new();
    for (index, f) in module.functions.iter().enumerate() {
        if f.is_declaration() {
            continue;
        }
        let selected = isel::select_function(module, ir::FuncId(index as u32), &isel_options)?;
        let finished = finish_function(
            selected.mir,
            &FinishOptions {
                function_index: object.functions.len(),
                frame_pointer: frame::FramePointer::of(module, f),
            },
        )
        .map_err(|e| Diagnostic {
            file: String::new(),
            pos: f.pos,
            message: format!("in function '{}': {e}", f.name),
        })?;
        block_offsets[index] = Some((
            object.functions.len(),
            selected
                .ir_blocks
                .iter()
                .map(|b| {
                    u64::from(finished.block_offsets[finished.placed[b.0 as usize].0 as usize])
                })
                .collect(),
        ));
        let code_size = finished.code.len() as u64;
        let (line_entries, variable_ranges, call_sites) = if options.debug_info {
            let inputs = line_table::inputs_of(
                &finished.mir,
                &finished.inst_offsets,
                finished.frame.markers.prologue_len,
                &finished.frame.markers.epilogue_starts,
            );
            let rows = line_table::line_entries(&inputs, &module.debug, f.subprogram);
            let ranges = history::variable_ranges(&history::HistoryInput {
                mir: &finished.mir,
                inst_offsets: &finished.inst_offsets,
                block_offsets: &finished.block_offsets,
                code_size,
                slot_offsets: &finished.frame.slot_offsets,
                spill_stores: &finished.spill_stores,
                table: &selected.debug,
            });
            let calls = call_sites::call_sites(&finished.mir, &finished.inst_offsets);
            (rows, ranges, calls)
        } else {
            (Vec::new(), Vec::new(), Vec::new())
        };
        let mut function = finished.to_model(!f.linkage.is_local());
        function.binding = isel::symbol_binding(f.linkage, &f.attrs);
        function.section_name = f.section.clone();
        function.align = function.align.max(u64::from(f.align.unwrap_or(0)));
        function.comdat = isel::comdat_group(module, &f.name, &f.attrs);
        if let Some(tables) = &selected.eh {
            let index = object.functions.len();
            let table = exception_table::build(
                &mut object,
                &mut pointer_objects,
                index,
                &finished,
                tables,
                &|symbol| !nounwind.contains(symbol),
            );
            object.exception_tables.push(table);
        }
        object.functions.push(function);
        functions.push(FunctionDebug {
            ir_function: index,
            line_entries,
            variable_ranges,
            code_size,
            call_sites,
        });
    }
    resolve_block_addresses(&mut object, &block_offsets);
    isel::attach_aliases(module, &mut object)?;
    Ok(CompiledModule { object, functions })
}

/// Points each relocation against a `blockaddress` placeholder (in data,
/// or a `lea` of one in code) at the block's code
/// ([`isel::block_address_of`]); a placeholder naming no compiled block
/// stays an undefined symbol the linker names.
fn resolve_block_addresses(object: &mut ObjectModel, block_offsets: &[Option<(usize, Vec<u64>)>]) {
    let code = object.functions.iter_mut().map(|f| &mut f.relocations);
    let data = object.data.iter_mut().map(|d| &mut d.relocations);
    for relocations in code.chain(data) {
        for relocation in relocations.iter_mut() {
            let dwarfsmith_emit::model::Symbol::Named(name) = &relocation.symbol else {
                continue;
            };
            let Some((func, block)) = isel::block_address_of(name) else {
                continue;
            };
            let place = block_offsets.get(func.0 as usize).and_then(Option::as_ref);
            if let Some((function, offsets)) = place {
                if let Some(&offset) = offsets.get(block.0 as usize) {
                    relocation.symbol = dwarfsmith_emit::model::Symbol::FunctionCode {
                        function: *function,
                        offset,
                    };
                }
            }
        }
    }
}
