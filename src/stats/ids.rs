//! The ids llvm-dwarfdump's statistics give functions and variables
//! (LLVM's `constructDieID`), made once per abstract origin rather than
//! once per instance.
//!
//! In: a unit's [`View`] and the DIEs the walk meets. Out: the id of each
//! in one buffer ([`Ids::text`]), and what the walk counts besides (a
//! declaring file and line, an abstract origin). Promises: the id of an
//! inlined instance or of a variable with an abstract origin is the one
//! the walk over the DIE and its origins gives; what is kept per origin
//! is only what that walk reads off the origin, so a cached id and a
//! fresh one never differ (a chain the walk stopped at `MAX_CHAIN` DIEs
//! is never cached).

use std::borrow::Cow;

use super::dies::{comp_dir, DieRef, View, MAX_CHAIN};
use super::digits::push_decimal;
use super::lines::absolute_path;
use super::Map;

/// The names a function's or variable's id is read from, linkage names first.
const LINKAGE_NAMES: &[gimli::DwAt] = &[gimli::DW_AT_MIPS_linkage_name, gimli::DW_AT_linkage_name];

/// What [`Ids::function`] finds besides the id.
#[derive(Clone, Copy)]
pub(crate) struct FunctionFacts {
    /// Whether the DIE (or its origin) names a declaring file and line.
    pub has_source: bool,
    /// Whether the DIE (or its origin) has `DW_AT_abstract_origin`.
    pub has_origin: bool,
}

/// The ids of one unit's walk.
#[derive(Default)]
pub(crate) struct Ids<'a> {
    /// The last id made (one buffer for all DIEs).
    pub text: String,
    /// The base names of the files ids name, by unit and file index (a
    /// unit's functions name a few files many times).
    file_names: Map<(usize, u64), String>,
    /// The function table's index and facts of the functions whose DIE
    /// names only an abstract origin (see [`View::sole_origin`]), by origin.
    functions: Map<DieRef, (usize, FunctionFacts)>,
    /// The name of each abstract variable that concrete variables name as
    /// their origin.
    names: Map<DieRef, Cow<'a, str>>,
}

impl<'a> Ids<'a> {
    /// The function table index of function (or inlined instance) `die`:
    /// its id, made in [`Ids::text`] when the DIE's origin was not met
    /// before, is given to `index_of`, which puts it in the table.
    pub fn function(
        &mut self,
        view: &View<'_, 'a>,
        die: DieRef,
        index_of: impl FnOnce(&str) -> usize,
    ) -> (usize, FunctionFacts) {
        let origin = view.sole_origin(die, FUNCTION_ID_NAMES);
        if let Some(known) = origin.and_then(|origin| self.functions.get(&origin)) {
            return *known;
        }
        let ([linkage, name, file, line, has_origin], visited) = view.find_each_counted(
            die,
            [
                LINKAGE_NAMES,
                &[gimli::DW_AT_name],
                &[gimli::DW_AT_decl_file],
                &[gimli::DW_AT_decl_line],
                &[gimli::DW_AT_abstract_origin],
            ],
        );
        let facts = FunctionFacts {
            has_source: file.is_some() && line.is_some(),
            has_origin: has_origin.is_some(),
        };
        self.text.clear();
        self.push_name(view, die, linkage.or(name));
        self.push_source(view, die, file, line);
        let index = index_of(&self.text);
        // A walk that stopped short of `MAX_CHAIN` DIEs gives any DIE
        // naming the same origin the same answers.
        if let Some(origin) = origin.filter(|_| visited < MAX_CHAIN - 1) {
            self.functions.insert(origin, (index, facts));
        }
        (index, facts)
    }

    /// The id of a variable whose origin (itself without one) is `origin`,
    /// after `prefix` (its block path), made in [`Ids::text`]; a variable
    /// at the unit's scope (prefix `g`) also gets its declaring file and
    /// line. Gives where its name ends in the id.
    pub fn variable(
        &mut self,
        view: &View<'_, 'a>,
        die: DieRef,
        origin: DieRef,
        prefix: &str,
    ) -> usize {
        self.text.clear();
        self.text.push_str(prefix);
        if prefix.is_empty() || prefix == "g" {
            let [linkage, name, file, line] = view.find_each(
                origin,
                [
                    LINKAGE_NAMES,
                    &[gimli::DW_AT_name],
                    &[gimli::DW_AT_decl_file],
                    &[gimli::DW_AT_decl_line],
                ],
            );
            self.push_name(view, origin, linkage.or(name));
            let name_end = self.text.len();
            self.push_source(view, origin, file, line);
            return name_end;
        }
        if origin == die {
            let [linkage, name] = view.find_each(origin, [LINKAGE_NAMES, &[gimli::DW_AT_name]]);
            self.push_name(view, origin, linkage.or(name));
            return self.text.len();
        }
        let name = match self.names.get(&origin) {
            Some(name) => name,
            None => {
                let [linkage, name] = view.find_each(origin, [LINKAGE_NAMES, &[gimli::DW_AT_name]]);
                let text = name_text(view, origin, linkage.or(name));
                self.names.entry(origin).or_insert(text)
            }
        };
        self.text.push_str(name);
        self.text.len()
    }

    /// Appends the text of `name` (read for `die`'s unit).
    fn push_name(
        &mut self,
        view: &View<'_, 'a>,
        die: DieRef,
        name: Option<gimli::Attribute<super::load::Slice<'a>>>,
    ) {
        self.text.push_str(&name_text(view, die, name));
    }

    /// Appends `:FILE:LINE`: the base name of the declaring file `file`
    /// of `die`'s unit ("/" without one) and line `line` (0 without one).
    fn push_source(
        &mut self,
        view: &View<'_, 'a>,
        die: DieRef,
        file: Option<gimli::Attribute<super::load::Slice<'a>>>,
        line: Option<gimli::Attribute<super::load::Slice<'a>>>,
    ) {
        let index = file.and_then(|attr| match attr.value() {
            gimli::AttributeValue::FileIndex(index) => Some(index),
            other => other.udata_value(),
        });
        let file = match index {
            Some(index) => self
                .file_names
                .entry((die.unit, index))
                .or_insert_with(|| file_base_name(view, die.unit, index)),
            None => "/",
        };
        let line = line
            .and_then(|attr| attr.value().udata_value())
            .unwrap_or(0);
        self.text.push(':');
        self.text.push_str(file);
        self.text.push(':');
        push_decimal(&mut self.text, line);
    }
}

/// The attributes a function's id is read from, besides its origin.
const FUNCTION_ID_NAMES: &[gimli::DwAt] = &[
    gimli::DW_AT_MIPS_linkage_name,
    gimli::DW_AT_linkage_name,
    gimli::DW_AT_name,
    gimli::DW_AT_decl_file,
    gimli::DW_AT_decl_line,
];

/// The text of name attribute `name` read for `die`'s unit ("" without one).
fn name_text<'a>(
    view: &View<'_, 'a>,
    die: DieRef,
    name: Option<gimli::Attribute<super::load::Slice<'a>>>,
) -> Cow<'a, str> {
    name.map(|attr| view.text(die.unit, attr.value()))
        .unwrap_or_default()
}

/// The base name of file `index` of unit `unit`'s line table, as an id
/// names it ("/" when the table has no such file).
fn file_base_name(view: &View<'_, '_>, unit: usize, index: u64) -> String {
    let info = &view.units().units[unit];
    info.unit
        .line_program
        .as_ref()
        .and_then(|program| {
            let comp_dir = comp_dir(&info.unit);
            absolute_path(info.dwarf, &info.unit, program.header(), index, &comp_dir)
        })
        .map(|path| path.rsplit('/').next().unwrap_or("").to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "/".into())
}
