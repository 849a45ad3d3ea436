//! Debug-information quality figures of any compiler's ELF x86-64 object,
//! executable or shared library (`dwarfsmith stats`).
//!
//! In: a file's bytes. Out: [`FileStatistics`]: the keys and values of
//! `llvm-dwarfdump-19 --statistics` (the same names, the same numbers),
//! llvm-locstats' coverage buckets, and per function its variables,
//! parameters, scope bytes covered, inlined instances and is_stmt rows;
//! per variable its location ranges, for `--compare` and `--html`.
//!
//! The modules: `load` (ELF sections through the object crate, inflated,
//! relocated), `dies` (DIE trees and LLVM's ways of reading them), `walk`
//! (the statistics walk), `ids` (LLVM's ids of functions and variables,
//! made once per abstract origin), `lines` (the line-table figures), `order` (units
//! worked on in parallel, summed in unit order), `report` (text and JSON),
//! `compare` (two builds side by side), `html` (the page), `digits`
//! (numbers written without `core::fmt`).
//!
//! The rule it follows: every figure is llvm-dwarfdump's definition, so a
//! number here and there can be compared; what dwarfsmith adds is named
//! differently and never changes those. A skeleton unit's `.dwo` is read
//! where llvm-dwarfdump finds it: in the package `FILE.dwp`, else at
//! `DW_AT_comp_dir` joined with the dwo name. A stripped file is measured
//! through its debug file when the caller finds one.

mod compare;
mod dies;
mod digits;
mod html;
mod ids;
mod lines;
mod load;
mod order;
mod report;
mod walk;

pub use compare::{
    compare, format_comparison, Comparison, FunctionChange, VariableChange, Verdict,
};
pub use html::write_page;
pub use lines::LineRow;
pub use load::CodeSection;
pub use report::format_statistics;
pub use walk::LocationKind;

/// The hash maps of the statistics: foldhash's fast hasher with a fixed
/// seed (the keys are names and offsets read from the file, and no map's
/// order reaches the output).
type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
/// The hash sets of the statistics (see [`Map`]).
type Set<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

/// Drops `value` on a thread of its own, so that freeing what a large
/// file's reading leaves (its tables, 6 ms on a 98 MB rustc debug binary;
/// its mapping, 4 ms) overlaps what follows instead of delaying it; drops
/// it here when no thread can be started.
pub fn drop_aside<T: Send + 'static>(value: T) {
    // When no thread can be started, `spawn` drops the closure, and
    // `value` with it, on this thread.
    let _ = std::thread::Builder::new()
        .name("drop".into())
        .spawn(move || drop(value));
}

/// A value of llvm-dwarfdump's statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A count.
    Number(u64),
    /// The file name or format.
    Text(String),
}

/// One function's figures, over all its instances.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionRow {
    /// llvm-dwarfdump's id: linkage name (else name), declaring file's base
    /// name and line, `name:file.c:12`.
    pub id: String,
    /// Out-of-line instances.
    pub instances: u64,
    /// Inlined instances.
    pub inlined: u64,
    /// Parameters, over all instances.
    pub params: u64,
    /// Local variables, over all instances.
    pub locals: u64,
    /// Bytes of the variables' parent scopes.
    pub scope_bytes: u64,
    /// ... covered by their locations.
    pub scope_bytes_covered: u64,
    /// is_stmt rows inside the out-of-line instances.
    pub is_stmt_lines: u64,
    /// The out-of-line instances' address ranges.
    pub ranges: Vec<(u64, u64)>,
}

/// One variable or parameter of a function, over all its instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableRow {
    /// The function's id.
    pub function: String,
    /// The variable's id in the function: its block path and name
    /// (`v0.i`: in the first lexical block; `vp1.b`: the second parameter).
    pub id: String,
    /// Its name.
    pub name: String,
    /// A parameter (else a local variable).
    pub is_param: bool,
    /// Bytes of its parent scopes.
    pub scope_bytes: u64,
    /// ... covered by its location.
    pub covered: u64,
    /// The location ranges of its out-of-line instances, with their kinds.
    pub ranges: Vec<(u64, u64, LocationKind)>,
}

/// Everything `stats` reports on one file.
#[derive(Clone, Debug)]
pub struct FileStatistics {
    /// llvm-dwarfdump's keys and values, in its order.
    pub keys: Vec<(String, Value)>,
    /// Per function, in DIE order.
    pub functions: Vec<FunctionRow>,
    /// Per variable, in DIE order.
    pub variables: Vec<VariableRow>,
    /// The line rows, by address.
    pub line_rows: Vec<LineRow>,
    /// The code sections.
    pub code: Vec<CodeSection>,
    /// Whether the file is a relocatable object (its addresses here are
    /// synthetic: see [`FileStatistics::llvm_address`]).
    pub relocatable: bool,
}

impl FileStatistics {
    /// The address llvm-dwarfdump prints for `address` (section-relative
    /// in an object).
    pub fn llvm_address(&self, address: u64) -> u64 {
        load::llvm_address(self.relocatable, address)
    }

    /// The code bytes from `start` to `end`, when one code section holds them.
    pub fn code_bytes(&self, start: u64, end: u64) -> Option<&[u8]> {
        self.code.iter().find_map(|section| {
            let from = usize::try_from(start.checked_sub(section.address)?).ok()?;
            let to = usize::try_from(end.checked_sub(section.address)?).ok()?;
            section.bytes.get(from..to)
        })
    }

    /// The value of key `name` as a number (0 when absent or not a number).
    pub fn number(&self, name: &str) -> u64 {
        self.keys
            .iter()
            .find(|(key, _)| key == name)
            .and_then(|(_, value)| match value {
                Value::Number(n) => Some(*n),
                Value::Text(_) => None,
            })
            .unwrap_or(0)
    }
}

/// The coverage bucket names, in order (llvm-locstats' rows).
pub const BUCKET_NAMES: [&str; walk::BUCKETS] = [
    "0%",
    "(0%,10%)",
    "[10%,20%)",
    "[20%,30%)",
    "[30%,40%)",
    "[40%,50%)",
    "[50%,60%)",
    "[60%,70%)",
    "[70%,80%)",
    "[80%,90%)",
    "[90%,100%)",
    "100%",
];

/// What [`read_statistics_with`] reads besides the file, and what it
/// gathers besides llvm-dwarfdump's keys, the per-function table and the
/// line rows.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions<'b> {
    /// Per-variable rows ([`FileStatistics::variables`]) and the code
    /// ([`FileStatistics::code`]), which `--compare` and `--html` show;
    /// without them both are empty, which saves the memory of one row per
    /// variable and a copy of the code on a large file.
    pub variables: bool,
    /// The debug file of a stripped file (found through its build id or
    /// `.gnu_debuglink`): the DWARF and the debug section sizes are read
    /// from it, the code from the file.
    pub debug_file: Option<&'b [u8]>,
    /// The DWARF package of the file (`FILE.dwp`): skeleton units' split
    /// units are read from it first, as llvm-dwarfdump does, then from
    /// their `.dwo` files.
    pub package: Option<&'b [u8]>,
    /// The caller ends the process once it has the figures (without
    /// freeing them): what the walk leaves besides them is then not freed
    /// either, rather than freed on a thread of its own ([`drop_aside`]),
    /// which on a large file took a core from the report's writing.
    pub ends_process: bool,
}

/// Reads the figures of one file, variables included; `name` is the file
/// name printed.
pub fn read_statistics(bytes: &[u8], name: &str) -> Result<FileStatistics, String> {
    let options = ReadOptions {
        variables: true,
        ..ReadOptions::default()
    };
    read_statistics_with(bytes, name, options, &|_| {})
}

/// [`read_statistics`] with `options`, calling `progress` with the share of
/// the compile units read so far (0.0 to 1.0; from any thread). The figures
/// are the same whatever the number of threads.
pub fn read_statistics_with(
    bytes: &[u8],
    name: &str,
    options: ReadOptions,
    progress: &(dyn Fn(f64) + Sync),
) -> Result<FileStatistics, String> {
    // The code is read only for the page and the comparison (with the
    // variables), and from the file itself, not its debug file.
    let mut file = load::LoadedFile::parse(bytes, options.variables)?;
    let code = std::mem::take(&mut file.code);
    if let Some(debug) = options.debug_file {
        file = load::LoadedFile::parse(debug, false).map_err(|e| format!("debug file: {e}"))?;
    }
    let dwarf = file.dwarf();
    let package_file = options
        .package
        .map(|package| load::LoadedFile::parse(package, false))
        .transpose()
        .map_err(|e| format!("package: {e}"))?;
    let package = package_file
        .as_ref()
        .map(load::LoadedFile::package)
        .transpose()
        .map_err(|e| format!("package: {e}"))?;
    let main_units = dies::main_units(&dwarf)?;
    let dwo_bytes: Vec<Vec<u8>> = dies::dwo_paths(&main_units)
        .iter()
        .filter_map(|path| std::fs::read(path).ok())
        .collect();
    let dwo_files: Vec<load::LoadedFile> = dwo_bytes
        .iter()
        .filter_map(|dwo| load::LoadedFile::parse(dwo, false).ok())
        .collect();
    let packaged = package.iter().flat_map(|package| {
        dies::dwo_ids(&main_units)
            .into_iter()
            .filter_map(|id| package.find_cu(id, &dwarf).ok().flatten())
    });
    let dwos: Vec<gimli::Dwarf<load::Slice<'_>>> = packaged
        .chain(dwo_files.iter().map(|dwo| {
            let mut sections = dwo.dwarf();
            sections.make_dwo(&dwarf);
            sections
        }))
        .collect();
    let units = dies::Units::new(main_units, &dwos)?;
    let total = units.units.len().max(1);
    let done = std::sync::atomic::AtomicUsize::new(0);
    // Each unit walked and its line table read in one task, the large
    // units started early; the results summed in unit order while later
    // units are walked.
    let sizes: Vec<usize> = units
        .units
        .iter()
        .map(|unit| unit.unit.header.unit_length())
        .collect();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let trees = dwarfsmith_emit::read::TreePool::with_room(largest);
    let one_unit = |unit: usize| -> Result<_, String> {
        let walk = walk::walk_unit(&units, unit, &file, options, &trees)?;
        let lines = lines::unit_lines(&units, unit, options.variables);
        let done = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(done as f64 / total as f64);
        Ok((walk, lines))
    };
    let mut walk = walk::Walk::with_room(&units);
    let mut line_sums = lines::LineSums::with_room(gimli::Section::reader(&dwarf.debug_line).len());
    // The lowest offset of the units after each: what is below it is in a
    // unit summed by then (split units' offsets are their `.dwo`'s).
    let mut later_units_from = vec![u64::MAX; units.units.len()];
    for unit in (1..units.units.len()).rev() {
        later_units_from[unit - 1] = later_units_from[unit].min(units.units[unit].start);
    }
    let mut summed = 0;
    order::in_unit_order(&sizes, units.parallel, one_unit, |(unit, lines)| {
        walk.merge(unit, later_units_from[summed]);
        summed += 1;
        line_sums.add(lines);
    })?;
    // What is left once every unit is summed, side by side.
    let ((), lines) = rayon::join(|| walk.zero_coverage_across_units(), || line_sums.finish());
    let (statistics, walk) = report::statistics(name, &file, code, walk, lines);
    // What the reading leaves besides the figures: the rest of the walk
    // (its distinct ids, abstract subprograms, ...), the units' headers
    // and abbreviations, the trees.
    if options.ends_process {
        std::mem::forget((walk, units, trees));
    } else {
        drop_aside(walk);
    }
    Ok(statistics)
}
