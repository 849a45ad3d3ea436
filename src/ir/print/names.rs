//! Names of a function's local values and blocks, as the printer writes them.
//!
//! In: a [`Function`]. Out: [`LocalNames`], the text (`%3`, `%x`) of every
//! argument, instruction result and block label. Promise: unnamed values
//! are numbered `%0, %1, ...` in the order LLVM requires (arguments, then
//! each block label and the results in it, in layout order); named ones
//! keep their names, made unique with a `.N` suffix if a pass duplicated
//! one. The verifier uses the same names in its messages, so an error
//! names a value the way the printed text does.

use crate::ir::hash::FxHashSet;
use std::fmt::Write;

use super::text::write_name;
use crate::ir::Function;

/// The text (`%3`, `%x`) of every local value and block label of a function.
pub struct LocalNames {
    /// Per parameter.
    pub args: Vec<String>,
    /// Per instruction arena index; `None` for instructions without a named
    /// result (void results, instructions in no block).
    pub insts: Vec<Option<String>>,
    /// Per block, with the leading `%`.
    pub blocks: Vec<String>,
}

impl LocalNames {
    /// Names every argument, block and result of `function`.
    pub fn assign(function: &Function) -> LocalNames {
        let mut next = 0u32;
        let mut used = FxHashSet::default();
        let mut name = |given: &Option<String>| -> String {
            let mut text = String::new();
            match given {
                Some(given) => {
                    let mut unique = given.clone();
                    let mut suffix = 1;
                    while !used.insert(unique.clone()) {
                        unique = format!("{given}.{suffix}");
                        suffix += 1;
                    }
                    write_name(&mut text, '%', &unique);
                }
                None => {
                    let _ = write!(text, "%{next}");
                    next += 1;
                }
            }
            text
        };
        let args = function.params.iter().map(|p| name(&p.name)).collect();
        let mut insts = vec![None; function.insts.len()];
        let mut blocks = Vec::with_capacity(function.blocks.len());
        for block in &function.blocks {
            blocks.push(name(&block.name));
            for &id in &block.insts {
                if let Some(inst) = function.insts.get(id.0 as usize) {
                    if !inst.ty.is_void() {
                        insts[id.0 as usize] = Some(name(&inst.name));
                    }
                }
            }
        }
        LocalNames {
            args,
            insts,
            blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_values_count_up_and_duplicate_names_get_suffixes() {
        let text = "define i32 @f(i32 %x, i32 %0) {\n  %2 = add i32 %x, %0\n  br label %next\nnext:\n  %3 = add i32 %2, 1\n  %t = add i32 %3, 1\n  ret i32 %t\n}\n";
        let mut module = crate::ir::parse::parse_module(text, "names.ll").unwrap();
        let f = &mut module.functions[0];
        // A pass that copied an instruction would copy its name too.
        let copy = f.blocks[1].insts[0];
        f.inst_mut(copy).name = Some("t".to_string());
        f.blocks[0].name = Some("has space".to_string());
        let names = LocalNames::assign(f);
        assert_eq!(names.args, ["%x", "%0"]);
        assert_eq!(names.blocks, [r#"%"has space""#, "%next"]);
        let results: Vec<_> = names.insts.iter().flatten().cloned().collect();
        assert_eq!(results, ["%1", "%t", "%t.1"]);
    }
}
