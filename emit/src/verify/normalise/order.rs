//! The functions in the order `read` finds them: by address, that is by
//! code section (`.text`, then the sections of explicit names and COMDAT
//! groups in the order the writer makes them) and offset in it.
//!
//! In: a model. Out: the same model with its functions in that order and
//! every function index renumbered (relocation symbols, subprograms,
//! location lists, line rows). A model already in that order comes back
//! unchanged.

use crate::model::{ChildScope, ObjectModel, Relocation, Scope, Symbol, VariableLocation};
use crate::write::Layout;

/// `model` with its functions in address order (see the module comment).
pub(crate) fn in_address_order(model: &ObjectModel) -> ObjectModel {
    let layout = Layout::of(model);
    let mut order: Vec<usize> = (0..model.functions.len()).collect();
    order.sort_by_key(|&f| (layout.function_sections[f], layout.function_offsets[f]));
    if order.iter().enumerate().all(|(new, &old)| new == old) {
        return model.clone();
    }
    let mut new_index = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let renumber = |relocations: &[Relocation]| -> Vec<Relocation> {
        relocations
            .iter()
            .map(|r| Relocation {
                symbol: match r.symbol {
                    Symbol::FunctionData(f) => {
                        Symbol::FunctionData(new_index.get(f).copied().unwrap_or(f))
                    }
                    Symbol::FunctionCode { function, offset } => Symbol::FunctionCode {
                        function: new_index.get(function).copied().unwrap_or(function),
                        offset,
                    },
                    Symbol::Literal { function, index } => Symbol::Literal {
                        function: new_index.get(function).copied().unwrap_or(function),
                        index,
                    },
                    ref named => named.clone(),
                },
                ..r.clone()
            })
            .collect()
    };
    let mut out = model.clone();
    out.functions = order
        .iter()
        .map(|&old| {
            let f = &model.functions[old];
            crate::model::Function {
                relocations: renumber(&f.relocations),
                rodata_relocations: renumber(&f.rodata_relocations),
                ..f.clone()
            }
        })
        .collect();
    for data in &mut out.data {
        data.relocations = renumber(&data.relocations);
    }
    if let Some(debug) = &mut out.debug {
        if debug.line_rows.len() == order.len() {
            debug.line_rows = order
                .iter()
                .map(|&old| debug.line_rows[old].clone())
                .collect();
        }
        for subprogram in &mut debug.subprograms {
            subprogram.function = subprogram
                .function
                .map(|f| new_index.get(f).copied().unwrap_or(f));
            renumber_scope(&mut subprogram.scope, &new_index);
        }
    }
    out
}

fn renumber_scope(scope: &mut Scope, new_index: &[usize]) {
    for variable in &mut scope.variables {
        if let VariableLocation::List { function, .. } = &mut variable.location {
            *function = new_index.get(*function).copied().unwrap_or(*function);
        }
    }
    for child in &mut scope.children {
        match child {
            ChildScope::Lexical { scope, .. } | ChildScope::Inlined { scope, .. } => {
                renumber_scope(scope, new_index)
            }
        }
    }
}
