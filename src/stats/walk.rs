//! The DIE walk of `llvm-dwarfdump --statistics` (LLVM 19, statistics
//! version 9), with what dwarfsmith adds per function and per variable.
//!
//! In: [`Units`] and the file's [`LoadedFile`]; each unit is walked on
//! its own (in parallel) and the units' walks are summed in unit order. Out: a [`Walk`]: the
//! per-function table llvm-dwarfdump sums into its figures, the global byte
//! and location-coverage counts, and one [`Variable`] per variable DIE.
//!
//! Follows llvm-dwarfdump to the number, including its odd corners: a
//! function is identified by its linkage name (else name), declaring file's
//! base name and line, so instances of one function in several units are
//! one; a variable by its name and its path of lexical-block and
//! parameter indices; a variable's coverage is the overlap of its location
//! ranges with its parent DIE's ranges, computed on addresses as LLVM reads
//! them (section-relative in an object); the variables of an inlined
//! function with no concrete DIE count at 0%; and abstract-origin offsets
//! are compared as LLVM compares them (the attribute's raw value against
//! `.debug_info` offsets); one variable's byte counts wrap and the file's
//! sums saturate, as LLVM's `uint64_t` and `SaturatingUINT64` do.

use super::Map;
use std::hash::BuildHasher as _;

use dwarfsmith_emit::read::TreePool;

use super::dies::{DieRef, LocationEntry, Units, View};
use super::digits::push_hex;
use super::ids::Ids;
use super::load::LoadedFile;
use super::{FunctionRow, ReadOptions};

/// The number of coverage buckets: 0%, (0%,10%), [10%,20%) ... [90%,100%), 100%.
pub(crate) const BUCKETS: usize = 12;

/// A variable's id as the set of a function met in several units keeps
/// it: its text, in place when short (most are: a block path and a local
/// name), so that such a set is not a string per variable.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum IdText {
    /// Up to [`SHORT_ID`] bytes, the rest zero.
    Short { len: u8, bytes: [u8; SHORT_ID] },
    /// A longer id.
    Long(Box<[u8]>),
}

/// The longest id [`IdText::Short`] holds.
const SHORT_ID: usize = 30;

impl IdText {
    /// The id's bytes.
    fn bytes(&self) -> &[u8] {
        match self {
            IdText::Short { len, bytes } => &bytes[..usize::from(*len)],
            IdText::Long(text) => text,
        }
    }

    /// The id `text`.
    fn new(text: &[u8]) -> IdText {
        match u8::try_from(text.len()) {
            Ok(len) if text.len() <= SHORT_ID => {
                let mut bytes = [0; SHORT_ID];
                bytes[..text.len()].copy_from_slice(text);
                IdText::Short { len, bytes }
            }
            _ => IdText::Long(text.into()),
        }
    }
}

/// What llvm-dwarfdump keeps per function (or, for "/", per unit scope)
/// that is not only summed: the figures only summed over all functions
/// are [`Walk`]'s ([`Totals`]), so each function's entry stays small (the
/// table of a large file has an entry per function, moved from its unit's
/// walk into the file's), and the entry holds the function's row as the
/// report gives it, so the rows are the table's memory.
#[derive(Default)]
pub(crate) struct FunctionStats {
    /// Its id, instances, variables, bytes and ranges (the is_stmt count
    /// is made by the report, once the line tables are read).
    pub row: FunctionRow,
    /// The distinct variable ids (kept by [`Walk::merge`]).
    pub unique_variables: u64,
    /// Whether this is a function (not the unit scope "/").
    pub is_function: bool,
    /// Whether it has a declaring file and line.
    pub has_source_location: bool,
}

/// The per-function counts of llvm-dwarfdump that its figures only sum
/// over all functions (the unit scope "/" included), summed as they are
/// counted.
#[derive(Default, Clone, Copy)]
pub(crate) struct Totals {
    /// Inlined instances with an abstract origin (of functions).
    pub abstract_origins: u64,
    /// Variables and parameters with a location, over all instances.
    pub with_location: u64,
    /// Constant members.
    pub constant_members: u64,
    /// Parameters (not artificial) with a declaring file and line.
    pub params_with_source: u64,
    /// ... with a type.
    pub params_with_type: u64,
    /// ... with a location.
    pub params_with_location: u64,
    /// Local variables (not artificial) with a declaring file and line.
    pub locals_with_source: u64,
    /// ... with a type.
    pub locals_with_type: u64,
    /// ... with a location.
    pub locals_with_location: u64,
    /// The unit scope's constant members.
    pub unit_scope_constant_members: u64,
    /// The unit scope's artificial variables.
    pub unit_scope_artificial: u64,
}

impl Totals {
    fn merge(&mut self, other: &Totals) {
        self.abstract_origins += other.abstract_origins;
        self.with_location += other.with_location;
        self.constant_members += other.constant_members;
        self.params_with_source += other.params_with_source;
        self.params_with_type += other.params_with_type;
        self.params_with_location += other.params_with_location;
        self.locals_with_source += other.locals_with_source;
        self.locals_with_type += other.locals_with_type;
        self.locals_with_location += other.locals_with_location;
        self.unit_scope_constant_members += other.unit_scope_constant_members;
        self.unit_scope_artificial += other.unit_scope_artificial;
    }
}

/// A variable's id in a unit's walk: the function (its index in the
/// unit's table), the id's hash, and where its text is in the unit's
/// [`UnitIds::text`].
#[derive(Clone, Copy, Default)]
struct VariableId {
    function: u32,
    text: TextAt,
    hash: u64,
}

/// Where an id's text is in its unit's [`UnitIds::text`].
#[derive(Clone, Copy, Default)]
struct TextAt {
    start: u32,
    len: u32,
}

/// A distinct id of a unit's function, as the file keeps it: its hash and
/// where its text is (16 bytes, where the id in place took 48).
#[derive(Clone, Copy, Default)]
struct KeptId {
    hash: u64,
    text: TextAt,
}

/// A unit's variable ids: as the walk meets them (`met`), then, once it
/// ends, each function's distinct ones (`kept`, by function, hash and
/// text; `runs`: each function of the unit's table that has ids and
/// where its run ends); the texts one after another.
#[derive(Default)]
struct UnitIds {
    met: Vec<VariableId>,
    kept: Vec<KeptId>,
    runs: Vec<(u32, u32)>,
    text: Vec<u8>,
}

impl UnitIds {
    /// The text of an id of this unit.
    fn text(&self, at: TextAt) -> &[u8] {
        text_at(&self.text, at)
    }
}

/// The text `at` of `text`.
fn text_at(text: &[u8], at: TextAt) -> &[u8] {
    &text[at.start as usize..at.start as usize + at.len as usize]
}

/// Where a function's distinct variable ids are kept as units are merged:
/// most functions are in one unit only, whose sorted list is kept and
/// pointed into; a function met again gets a set of its own.
#[derive(Clone, Copy, Default)]
enum FunctionIds {
    /// No variable yet.
    #[default]
    None,
    /// `Walk::unit_ids[list][start..end]`.
    InUnit { list: u32, start: u32, end: u32 },
    /// `Walk::shared_ids[set]`.
    Shared(u32),
}

/// Coverage buckets of one kind of variable.
#[derive(Default, Clone, Copy)]
pub(crate) struct Buckets {
    /// Variables counted.
    pub processed: u64,
    /// By bucket.
    pub counts: [u64; BUCKETS],
    /// By bucket, entry-value bytes not counted as covered.
    pub non_entry_value: [u64; BUCKETS],
}

/// Byte sums of one kind of variable.
#[derive(Default, Clone, Copy)]
pub(crate) struct ScopeBytes {
    /// Bytes of the parent scopes.
    pub in_scope: u64,
    /// ... covered by a location.
    pub covered: u64,
    /// ... covered by an entry value.
    pub entry_value: u64,
}

/// Where a variable lives over one address range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocationKind {
    /// A register (`DW_OP_reg*`, `DW_OP_regx`).
    Register,
    /// Memory: a stack slot or any address.
    Memory,
    /// A constant or computed value (`DW_OP_stack_value`, `DW_OP_implicit_value`).
    Computed,
    /// An expression using `DW_OP_entry_value`.
    EntryValue,
}

impl LocationKind {
    /// The kind's name in the JSON and the page.
    pub fn name(self) -> &'static str {
        match self {
            LocationKind::Register => "register",
            LocationKind::Memory => "memory",
            LocationKind::Computed => "computed",
            LocationKind::EntryValue => "entry-value",
        }
    }
}

/// One variable or parameter DIE inside a function.
pub(crate) struct Variable {
    /// The id of the function it belongs to.
    pub function: String,
    /// Its id in the function (block path and name).
    pub id: String,
    /// Its name.
    pub name: String,
    /// A parameter (else a local variable).
    pub is_param: bool,
    /// Bytes of its parent scope.
    pub scope_bytes: u64,
    /// ... covered by its location.
    pub covered: u64,
    /// Its location ranges (synthetic addresses) and kinds; a location
    /// without range covers the parent scope.
    pub ranges: Vec<(u64, u64, LocationKind)>,
    /// Whether it belongs to an inlined instance.
    pub inlined: bool,
}

/// How a function's id and a variable's id are hashed (the same in every
/// unit's walk).
const ID_HASH: foldhash::fast::FixedState = foldhash::fast::FixedState::with_seed(0);

/// Everything the walk gathers: of one unit, then of the whole file.
#[derive(Default)]
pub(crate) struct Walk {
    /// Per function id, in the order first met.
    pub functions: Vec<FunctionStats>,
    /// The hash of each function's id, in table order: the unit's walk
    /// hashes an id once, and the sum of the units' walks finds it by that
    /// hash without hashing the (long, mangled) id again.
    hashes: Vec<u64>,
    /// The table's indices by their id's hash.
    index: hashbrown::HashTable<usize>,
    /// What is only summed over the functions.
    pub totals: Totals,
    /// Of one unit: its variables' ids ([`Walk::settle_variable_ids`]).
    variable_ids: UnitIds,
    /// Of the whole file: the units' distinct ids, kept as they came,
    /// which [`Walk::ids_of`] points into.
    unit_ids: Vec<UnitIds>,
    /// Of the whole file: where each function's distinct variable ids are
    /// (by table index).
    ids_of: Vec<FunctionIds>,
    /// Of the whole file: the distinct ids of the functions met in more
    /// than one unit, by hash and text.
    shared_ids: Vec<hashbrown::HashTable<(u64, IdText)>>,
    /// All variables.
    pub variables: Vec<Variable>,
    /// `DW_AT_call_file` + `DW_AT_call_line` scopes.
    pub call_site_entries: u64,
    /// `DW_TAG_call_site` DIEs.
    pub call_site_dies: u64,
    /// `DW_TAG_call_site_parameter` DIEs.
    pub call_site_parameter_dies: u64,
    /// Bytes covered by locations anywhere.
    pub total_bytes_covered: u64,
    /// All variables', parameters' and local variables' scope bytes.
    pub all: ScopeBytes,
    /// Parameters' scope bytes.
    pub params: ScopeBytes,
    /// Local variables' scope bytes.
    pub locals: ScopeBytes,
    /// Bytes of concrete functions.
    pub function_bytes: u64,
    /// Bytes of outermost inlined instances.
    pub inlined_bytes: u64,
    /// Coverage buckets of all variables.
    pub all_buckets: Buckets,
    /// ... of parameters.
    pub param_buckets: Buckets,
    /// ... of local variables.
    pub local_buckets: Buckets,
    /// Of one unit: its abstract (`DW_AT_inline`) subprograms with
    /// variables, in DIE order: `.debug_info` offset, and each variable's
    /// offset and tag.
    abstracts: Vec<(u64, Vec<(u64, gimli::DwTag)>)>,
    /// Of the whole file: the variables of the units' abstract
    /// subprograms by offset, gathered as units are merged, so that only
    /// the look-ups of [`Walk::zero_coverage_across_units`] are left once
    /// every unit is.
    abstracts_by_offset: Map<u64, Vec<(u64, gimli::DwTag)>>,
    /// Concrete instances whose abstract subprogram is in another unit:
    /// the abstract origin's raw value and where the origins of the
    /// instance's variables that have a location are in
    /// [`Walk::cross_unit_located`]. Of a unit, every such instance; of
    /// the whole file, those [`Walk::merge`] could not settle yet.
    cross_unit: Vec<(u64, std::ops::Range<usize>)>,
    /// The origins [`Walk::cross_unit`] names, one after another.
    cross_unit_located: Vec<u64>,
}

/// Adds the ids of `run` (of the unit `ids`) that `set` lacks; how many.
fn add_ids(set: &mut hashbrown::HashTable<(u64, IdText)>, ids: &UnitIds, run: &[KeptId]) -> usize {
    let mut added = 0;
    for id in run {
        let text = ids.text(id.text);
        let entry = set.entry(
            id.hash,
            |(hash, kept)| *hash == id.hash && kept.bytes() == text,
            |&(hash, _)| hash,
        );
        if let hashbrown::hash_table::Entry::Vacant(vacant) = entry {
            vacant.insert((id.hash, IdText::new(text)));
            added += 1;
        }
    }
    added
}

impl FunctionStats {
    /// Adds `other`'s figures (the same function met in a later unit; its
    /// distinct variables are counted by [`Walk::merge`]).
    fn merge(&mut self, other: FunctionStats) {
        let (row, other_row) = (&mut self.row, other.row);
        row.inlined += other_row.inlined;
        row.instances += other_row.instances;
        row.params += other_row.params;
        row.locals += other_row.locals;
        row.scope_bytes = row.scope_bytes.saturating_add(other_row.scope_bytes);
        row.scope_bytes_covered = row
            .scope_bytes_covered
            .saturating_add(other_row.scope_bytes_covered);
        row.ranges.extend(other_row.ranges);
        self.is_function |= other.is_function;
        self.has_source_location |= other.has_source_location;
    }
}

impl Buckets {
    fn merge(&mut self, other: &Buckets) {
        self.processed += other.processed;
        for bucket in 0..BUCKETS {
            self.counts[bucket] += other.counts[bucket];
            self.non_entry_value[bucket] += other.non_entry_value[bucket];
        }
    }
}

impl ScopeBytes {
    fn merge(&mut self, other: &ScopeBytes) {
        self.in_scope = self.in_scope.saturating_add(other.in_scope);
        self.covered = self.covered.saturating_add(other.covered);
        self.entry_value = self.entry_value.saturating_add(other.entry_value);
    }
}

impl Walk {
    /// An empty walk with room for the functions of `units`, so the table
    /// they are merged into is not copied (and fresh pages faulted in) as
    /// it grows: a guess of one function per 256 bytes of DIEs (rustc's
    /// debug binaries have one per 330); room never used costs address
    /// space only.
    pub fn with_room(units: &Units<'_>) -> Walk {
        let bytes: usize = units
            .units
            .iter()
            .map(|unit| unit.unit.header.unit_length())
            .sum();
        Walk::with_room_for(bytes)
    }

    /// An empty walk with room for the functions of `bytes` of DIEs (see
    /// [`Walk::with_room`]): of the file, or of the one unit a walk reads.
    fn with_room_for(bytes: usize) -> Walk {
        let mut walk = Walk::default();
        walk.functions.reserve(bytes / 256);
        walk.hashes.reserve(bytes / 256);
        let hashes = &walk.hashes;
        walk.index.reserve(bytes / 256, |&at| hashes[at]);
        walk
    }

    /// The index of the function whose id is `id` and id's hash `hash`.
    fn find(&self, hash: u64, id: &str) -> Option<usize> {
        let functions = &self.functions;
        self.index
            .find(hash, |&at| functions[at].row.id == id)
            .copied()
    }

    /// Puts function `stats` (not in the table yet; `hash` is its id's)
    /// at the end of the table.
    fn push(&mut self, hash: u64, stats: FunctionStats) -> usize {
        let at = self.functions.len();
        self.functions.push(stats);
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index.insert_unique(hash, at, |&at| hashes[at]);
        at
    }

    /// The index of function `id` in the table, which it joins when new.
    fn function_index(&mut self, id: &str) -> usize {
        let hash = ID_HASH.hash_one(id);
        match self.find(hash, id) {
            Some(at) => at,
            None => {
                let mut stats = FunctionStats::default();
                stats.row.id = id.to_string();
                self.push(hash, stats)
            }
        }
    }

    /// Appends the walk of the next unit. Every sum is a plain, wrapping
    /// or saturating sum of non-negative terms, so summing unit by unit
    /// gives what one walk over all units gives. `later_units_from` is the
    /// lowest `.debug_info` offset of the units merged after this one: an
    /// abstract subprogram below it is in a unit merged by now, so the
    /// instances naming it are settled here rather than kept to the end.
    pub fn merge(&mut self, unit: Walk, later_units_from: u64) {
        let mut in_file = Vec::with_capacity(unit.functions.len());
        for (stats, hash) in unit.functions.into_iter().zip(unit.hashes) {
            let at = match self.find(hash, &stats.row.id) {
                Some(at) => {
                    self.functions[at].merge(stats);
                    at
                }
                None => self.push(hash, stats),
            };
            in_file.push(u32::try_from(at).unwrap_or(u32::MAX));
        }
        self.merge_variable_ids(unit.variable_ids, &in_file);
        self.totals.merge(&unit.totals);
        self.variables.extend(unit.variables);
        self.call_site_entries += unit.call_site_entries;
        self.call_site_dies += unit.call_site_dies;
        self.call_site_parameter_dies += unit.call_site_parameter_dies;
        self.total_bytes_covered = self
            .total_bytes_covered
            .wrapping_add(unit.total_bytes_covered);
        self.all.merge(&unit.all);
        self.params.merge(&unit.params);
        self.locals.merge(&unit.locals);
        self.function_bytes = self.function_bytes.saturating_add(unit.function_bytes);
        self.inlined_bytes = self.inlined_bytes.saturating_add(unit.inlined_bytes);
        self.all_buckets.merge(&unit.all_buckets);
        self.param_buckets.merge(&unit.param_buckets);
        self.local_buckets.merge(&unit.local_buckets);
        for (offset, vars) in unit.abstracts {
            match self.abstracts_by_offset.entry(offset) {
                std::collections::hash_map::Entry::Vacant(vacant) => {
                    vacant.insert(vars);
                }
                std::collections::hash_map::Entry::Occupied(mut occupied) => {
                    occupied.get_mut().extend(vars)
                }
            }
        }
        for (origin, located) in unit.cross_unit {
            let located = &unit.cross_unit_located[located];
            if origin < later_units_from {
                self.count_zero_coverage_of(origin, located);
            } else {
                let from = self.cross_unit_located.len();
                self.cross_unit_located.extend_from_slice(located);
                let to = self.cross_unit_located.len();
                self.cross_unit.push((origin, from..to));
            }
        }
    }

    /// Sorts the unit's variable ids by function, hash and text, each
    /// function's distinct ids once: done on the unit's thread, so that
    /// [`Walk::merge`] only points to each function's run.
    fn settle_variable_ids(&mut self) {
        let ids = &mut self.variable_ids;
        let met = std::mem::take(&mut ids.met);
        // Each function's ids moved into one run, in function order (a
        // counting sort: an id's function is an index into the unit's
        // table, or saturated below its length), then each run sorted.
        let mut next = vec![0u32; self.functions.len() + 1];
        for id in &met {
            next[id.function as usize + 1] += 1;
        }
        for function in 1..next.len() {
            next[function] += next[function - 1];
        }
        let mut kept = vec![KeptId::default(); met.len()];
        for id in &met {
            let at = &mut next[id.function as usize];
            kept[*at as usize] = KeptId {
                hash: id.hash,
                text: id.text,
            };
            *at += 1;
        }
        // `next[function]` is now where the function's run ends.
        let bytes = |at: TextAt| text_at(&ids.text, at);
        let mut runs = Vec::new();
        let (mut start, mut kept_end) = (0, 0);
        for (function, &end) in next.iter().enumerate().take(self.functions.len()) {
            let run = start as usize..end as usize;
            start = end;
            if run.is_empty() {
                continue;
            }
            kept[run.clone()].sort_unstable_by(|a, b| {
                a.hash
                    .cmp(&b.hash)
                    .then_with(|| bytes(a.text).cmp(bytes(b.text)))
            });
            // The run's distinct ids, moved down to follow the runs before.
            let mut last: Option<KeptId> = None;
            for index in run {
                let id = kept[index];
                let same =
                    |last: KeptId| last.hash == id.hash && bytes(last.text) == bytes(id.text);
                if last.is_some_and(same) {
                    continue;
                }
                last = Some(id);
                kept[kept_end] = id;
                kept_end += 1;
            }
            runs.push((function as u32, kept_end as u32));
        }
        kept.truncate(kept_end);
        ids.kept = kept;
        ids.runs = runs;
    }

    /// Counts each function's distinct variable ids with a unit's `ids`
    /// ([`Walk::settle_variable_ids`]), whose functions are `in_file`: a
    /// function new to the file points to its run of `ids`, which is kept;
    /// one met before gets (or adds to) a set of its own.
    fn merge_variable_ids(&mut self, ids: UnitIds, in_file: &[u32]) {
        let list = u32::try_from(self.unit_ids.len()).unwrap_or(u32::MAX);
        let mut start = 0;
        for &(unit_function, end) in &ids.runs {
            let function = in_file[unit_function as usize] as usize;
            if self.ids_of.len() <= function {
                self.ids_of.resize(function + 1, FunctionIds::None);
            }
            let run = &ids.kept[start as usize..end as usize];
            let added = match self.ids_of[function] {
                // A unit's ids fit in 32 bits: its tree refuses a unit of
                // 4 GiB or more (`DieTree::read_some`).
                FunctionIds::None => {
                    self.ids_of[function] = FunctionIds::InUnit { list, start, end };
                    run.len()
                }
                FunctionIds::InUnit {
                    list: before,
                    start: from,
                    end: to,
                } => {
                    let mut set = hashbrown::HashTable::with_capacity(run.len() * 2);
                    let earlier_ids = &self.unit_ids[before as usize];
                    for id in &earlier_ids.kept[from as usize..to as usize] {
                        let text = IdText::new(earlier_ids.text(id.text));
                        set.insert_unique(id.hash, (id.hash, text), |&(hash, _)| hash);
                    }
                    let added = add_ids(&mut set, &ids, run);
                    self.ids_of[function] = FunctionIds::Shared(
                        u32::try_from(self.shared_ids.len()).unwrap_or(u32::MAX),
                    );
                    self.shared_ids.push(set);
                    added
                }
                FunctionIds::Shared(set) => add_ids(&mut self.shared_ids[set as usize], &ids, run),
            };
            self.functions[function].unique_variables += added as u64;
            start = end;
        }
        self.unit_ids.push(ids);
    }

    /// Functions whose abstract subprogram is in another unit, which
    /// [`Walk::merge`] could not settle: their variables without a
    /// concrete DIE with a location count at 0% (once every unit is
    /// merged).
    pub fn zero_coverage_across_units(&mut self) {
        let cross_unit = std::mem::take(&mut self.cross_unit);
        let located = std::mem::take(&mut self.cross_unit_located);
        for (origin, range) in cross_unit {
            self.count_zero_coverage_of(origin, &located[range]);
        }
    }

    /// The variables of the abstract subprogram at `origin` (as merged so
    /// far) that are not `located` in an instance: counted at 0%.
    fn count_zero_coverage_of(&mut self, origin: u64, located: &[u64]) {
        let Walk {
            abstracts_by_offset,
            all_buckets,
            param_buckets,
            local_buckets,
            ..
        } = self;
        let Some(vars) = abstracts_by_offset.get(&origin) else {
            return;
        };
        for &(var, tag) in vars {
            if !located.contains(&var) {
                count_zero_coverage([all_buckets, param_buckets, local_buckets], Some(tag));
            }
        }
    }

    /// A variable of an inlined function that no concrete DIE describes:
    /// counted at 0%.
    fn count_zero_coverage(&mut self, tag: Option<gimli::DwTag>) {
        let buckets = [
            &mut self.all_buckets,
            &mut self.param_buckets,
            &mut self.local_buckets,
        ];
        count_zero_coverage(buckets, tag);
    }
}

/// [`Walk::count_zero_coverage`] on the buckets of all variables, of
/// parameters and of local variables.
fn count_zero_coverage([all, params, locals]: [&mut Buckets; 3], tag: Option<gimli::DwTag>) {
    all.processed += 1;
    all.counts[0] += 1;
    let kind = match tag {
        Some(gimli::DW_TAG_formal_parameter) => params,
        Some(gimli::DW_TAG_variable) => locals,
        _ => return,
    };
    kind.processed += 1;
    kind.counts[0] += 1;
}

/// The function a DIE belongs to: its index in the unit's table, so its
/// variables find it without hashing its (long, mangled) id again, or
/// `None` for the unit's scope ("/", in the table once it has a variable).
type Owner = Option<usize>;

/// The id of the unit's scope.
const UNIT_SCOPE: &str = "/";

/// The state of the walk over one unit.
struct Walker<'v, 'u, 'a> {
    view: &'v View<'u, 'a>,
    file: &'v LoadedFile<'v>,
    walk: Walk,
    /// The unit's abstract subprograms with variables: where each is in
    /// `walk.abstracts`, by offset.
    local_abstract: Map<u64, usize>,
    deferred: Vec<u64>,
    /// Whether to keep a [`Variable`] per variable DIE.
    variables: bool,
    /// The ids of the unit's functions and variables.
    ids: Ids<'a>,
    /// The location entries of the variable being walked (room reused).
    locations: Vec<LocationEntry<'a>>,
    /// The ranges of the scopes around the DIE being walked, outermost
    /// first (each scope's pushed as it is entered, dropped as it is left).
    scope_ranges: Vec<(u64, u64)>,
    /// Buffers for the children's id prefixes, one taken by each scope
    /// being walked and given back as it is left, so a prefix is not a
    /// fresh string grown for each DIE with parameters or blocks.
    spare_prefixes: Vec<String>,
    /// Buffers for the lists of an instance's abstract variables not yet
    /// seen with a location, taken and given back as `spare_prefixes`.
    spare_origin_lists: Vec<Vec<u64>>,
}

/// What a DIE's place in the tree gives its walk.
#[derive(Clone)]
struct Scope<'p> {
    /// The function it belongs to.
    function: Owner,
    /// Its id's prefix: the path of blocks and parameters to it.
    prefix: &'p str,
    /// Bytes of the innermost scope around it with any.
    bytes_in_scope: u64,
    /// How many inlined instances it is in, within its function.
    inline_depth: u32,
    /// Where its parent's ranges are in [`Walker::scope_ranges`], when the
    /// walk read them (the parent is a function, an inlined instance or a
    /// block).
    parent_ranges: Option<std::ops::Range<usize>>,
}

/// Walks unit `unit` of `units`, read into a tree of `trees`; the units'
/// walks are summed in unit order with [`Walk::merge`].
pub(crate) fn walk_unit<'a>(
    units: &Units<'a>,
    unit: usize,
    file: &LoadedFile<'_>,
    options: ReadOptions,
    trees: &TreePool<'a>,
) -> Result<Walk, String> {
    let view = units.view(unit, trees.take())?;
    let length = units.units[unit].unit.header.unit_length();
    let mut walker = Walker {
        view: &view,
        file,
        walk: Walk::with_room_for(length),
        local_abstract: Map::default(),
        deferred: Vec::new(),
        variables: options.variables,
        ids: Ids::default(),
        locations: Vec::new(),
        scope_ranges: Vec::new(),
        spare_prefixes: Vec::new(),
        spare_origin_lists: Vec::new(),
    };
    // Room for the unit's variables' ids (rustc's debug binaries have a
    // variable DIE per 95 bytes; room never used costs address space).
    walker.walk.variable_ids.met.reserve(length / 64);
    let root = DieRef { unit, die: 0 };
    if !view.is_empty() {
        let unit_scope = Scope {
            function: None,
            prefix: "g",
            bytes_in_scope: 0,
            inline_depth: 0,
            parent_ranges: None,
        };
        walker.recurse(root, unit_scope, None);
    }
    walker.zero_coverage_of_deferred(unit);
    let mut walk = walker.walk;
    if u32::try_from(walk.variable_ids.text.len()).is_err() {
        return Err(format!(
            ".debug_info+{:#x}: the unit's variable ids take more than 4 GiB",
            units.units[unit].start
        ));
    }
    walk.settle_variable_ids();
    trees.give(view.into_tree());
    Ok(walk)
}

impl Walker<'_, '_, '_> {
    /// The table index of the function `owner` names.
    fn function(&mut self, owner: Owner) -> usize {
        match owner {
            Some(index) => index,
            None => self.walk.function_index(UNIT_SCOPE),
        }
    }

    fn recurse(&mut self, die: DieRef, scope: Scope<'_>, inherited: Option<&mut Vec<u64>>) {
        let Scope {
            mut function,
            prefix,
            mut bytes_in_scope,
            mut inline_depth,
            ..
        } = scope;
        let view = self.view;
        let tag = view.tag(die);
        if tag == gimli::DW_TAG_subroutine_type {
            return;
        }
        let is_function = tag == gimli::DW_TAG_subprogram;
        let is_block = tag == gimli::DW_TAG_lexical_block;
        let is_inlined = tag == gimli::DW_TAG_inlined_subroutine;
        let tracks_zero_coverage =
            is_inlined || (is_function && view.has(die, gimli::DW_AT_abstract_origin));
        let mut own: Option<Vec<u64>> = None;
        let mut deferred_here = false;
        if tracks_zero_coverage {
            if let Some(origin) = view.raw_reference(die, gimli::DW_AT_abstract_origin) {
                match self.local_abstract.get(&origin) {
                    Some(&at) => {
                        let mut vars = self.spare_origin_lists.pop().unwrap_or_default();
                        vars.clear();
                        vars.extend(self.walk.abstracts[at].1.iter().map(|&(var, _)| var));
                        own = Some(vars);
                    }
                    None => {
                        self.deferred.push(view.offset(die));
                        deferred_here = true;
                    }
                }
            }
        }
        // The function a DIE belongs to: its parent's, or its own.
        let prefix = if is_function || is_inlined {
            "v"
        } else {
            prefix
        };
        // The DIE's ranges, for its variables, when it is a scope: on top
        // of `scope_ranges` until the walk leaves it.
        let mut own_ranges = None;
        let outer_ranges = self.scope_ranges.len();
        if is_function || is_inlined || is_block {
            if view.has(die, gimli::DW_AT_declaration) {
                return;
            }
            if view.has(die, gimli::DW_AT_call_file) && view.has(die, gimli::DW_AT_call_line) {
                self.walk.call_site_entries += 1;
            }
            if !view.ranges_into(die, &mut self.scope_ranges) {
                return;
            }
            let ranges = &self.scope_ranges[outer_ranges..];
            let bytes: u64 = ranges.iter().fold(0u64, |sum, &(low, high)| {
                sum.wrapping_add(high.wrapping_sub(low))
            });
            if !is_block {
                if view.has(die, gimli::DW_AT_inline) {
                    self.scope_ranges.truncate(outer_ranges);
                    self.record_abstract_function(die);
                    return;
                }
                let walk = &mut self.walk;
                let (index, facts) = self.ids.function(view, die, |id| walk.function_index(id));
                let stats = &mut self.walk.functions[index];
                stats.is_function = true;
                if is_inlined {
                    stats.row.inlined += 1;
                    self.walk.totals.abstract_origins += u64::from(facts.has_origin);
                } else {
                    stats.row.instances += 1;
                    let ranges = &self.scope_ranges[outer_ranges..];
                    stats.row.ranges.extend(ranges.iter().copied());
                }
                stats.has_source_location |= facts.has_source;
                function = Some(index);
            }
            own_ranges = Some(outer_ranges..self.scope_ranges.len());
            if bytes != 0 {
                bytes_in_scope = bytes;
                if is_function {
                    self.walk.function_bytes = self.walk.function_bytes.saturating_add(bytes);
                } else if is_inlined && inline_depth == 0 {
                    self.walk.inlined_bytes = self.walk.inlined_bytes.saturating_add(bytes);
                }
            }
        }
        let mut pointer: Option<&mut Vec<u64>> = match own.as_mut() {
            Some(vars) => Some(vars),
            None if deferred_here => None,
            None => inherited,
        };
        if !(is_function || is_inlined || is_block) {
            self.variable(die, scope, pointer.as_deref_mut());
        }
        if is_function {
            inline_depth = 0;
        } else if is_inlined {
            inline_depth += 1;
        }
        let mut blocks = 0u64;
        let mut params = 0u64;
        let mut child_prefix = self.spare_prefixes.pop().unwrap_or_default();
        for child in view.children(die) {
            let tag = view.tag(child);
            let bare = is_bare(tag)
                || (tag == gimli::DW_TAG_member && !view.has(child, gimli::DW_AT_const_value));
            if bare && view.children(child).next().is_none() {
                continue;
            }
            let child_prefix = match tag {
                gimli::DW_TAG_lexical_block => {
                    child_prefix.clear();
                    child_prefix.push_str(prefix);
                    push_hex(&mut child_prefix, blocks);
                    child_prefix.push('.');
                    blocks += 1;
                    child_prefix.as_str()
                }
                gimli::DW_TAG_formal_parameter => {
                    child_prefix.clear();
                    child_prefix.push_str(prefix);
                    child_prefix.push('p');
                    push_hex(&mut child_prefix, params);
                    child_prefix.push('.');
                    params += 1;
                    child_prefix.as_str()
                }
                _ => prefix,
            };
            let child_scope = Scope {
                function,
                prefix: child_prefix,
                bytes_in_scope,
                inline_depth,
                parent_ranges: own_ranges.clone(),
            };
            self.recurse(child, child_scope, pointer.as_deref_mut());
        }
        self.spare_prefixes.push(child_prefix);
        self.scope_ranges.truncate(outer_ranges);
        if let Some(own) = own {
            for &offset in &own {
                let tag = view.at_offset(die.unit, offset).map(|var| view.tag(var));
                self.walk.count_zero_coverage(tag);
            }
            self.spare_origin_lists.push(own);
        }
    }

    /// Remembers the variables of an abstract (`DW_AT_inline`) subprogram.
    fn record_abstract_function(&mut self, die: DieRef) {
        let offset = self.view.offset(die);
        let mut vars = Vec::new();
        self.abstract_variables(die, &mut vars);
        if vars.is_empty() {
            return;
        }
        // A DIE is walked once, so its offset is new to the unit; were it
        // not, its variables would follow those recorded before.
        match self.local_abstract.get(&offset) {
            Some(&at) => self.walk.abstracts[at].1.extend(vars),
            None => {
                self.local_abstract
                    .insert(offset, self.walk.abstracts.len());
                self.walk.abstracts.push((offset, vars));
            }
        }
    }

    fn abstract_variables(&self, die: DieRef, vars: &mut Vec<(u64, gimli::DwTag)>) {
        let view = self.view;
        for child in view.children(die) {
            match view.tag(child) {
                tag @ (gimli::DW_TAG_formal_parameter | gimli::DW_TAG_variable) => {
                    vars.push((view.offset(child), tag));
                }
                gimli::DW_TAG_lexical_block => self.abstract_variables(child, vars),
                _ => {}
            }
        }
    }

    /// The origins of `die`'s variables that have a location (what LLVM's
    /// `updateVarsWithAbstractOriginLocCovInfo` removes).
    fn located(&self, die: DieRef, origins: &mut Vec<u64>) {
        let view = self.view;
        for child in view.children(die) {
            let tag = view.tag(child);
            let is_variable =
                tag == gimli::DW_TAG_formal_parameter || tag == gimli::DW_TAG_variable;
            if is_variable
                && (view.has(child, gimli::DW_AT_location)
                    || view.has(child, gimli::DW_AT_const_value))
            {
                if let Some(origin) = view.raw_reference(child, gimli::DW_AT_abstract_origin) {
                    origins.push(origin);
                }
            } else if tag == gimli::DW_TAG_lexical_block {
                self.located(child, origins);
            }
        }
    }

    /// Functions whose abstract subprogram came later in their unit; those
    /// whose abstract subprogram is in another unit are kept for
    /// [`Walk::zero_coverage_across_units`].
    fn zero_coverage_of_deferred(&mut self, unit: usize) {
        let mut located = Vec::new();
        for offset in std::mem::take(&mut self.deferred) {
            let Some(die) = self.view.at_offset(unit, offset) else {
                continue;
            };
            let Some(origin) = self.view.raw_reference(die, gimli::DW_AT_abstract_origin) else {
                continue;
            };
            located.clear();
            self.located(die, &mut located);
            let Some(&at) = self.local_abstract.get(&origin) else {
                let from = self.walk.cross_unit_located.len();
                self.walk.cross_unit_located.extend_from_slice(&located);
                let to = self.walk.cross_unit_located.len();
                self.walk.cross_unit.push((origin, from..to));
                continue;
            };
            for index in 0..self.walk.abstracts[at].1.len() {
                let var = self.walk.abstracts[at].1[index].0;
                if !located.contains(&var) {
                    let tag = self.view.at_offset(unit, var).map(|v| self.view.tag(v));
                    self.walk.count_zero_coverage(tag);
                }
            }
        }
    }

    /// LLVM's `collectStatsForDie`: one DIE that is not a scope.
    fn variable(&mut self, die: DieRef, scope: Scope<'_>, abstract_vars: Option<&mut Vec<u64>>) {
        let Scope {
            function,
            prefix,
            bytes_in_scope,
            inline_depth,
            parent_ranges,
        } = scope;
        let view = self.view;
        // The parent scope's ranges: as the walk read them, else read now.
        let scope_ranges = || match parent_ranges.clone() {
            Some(ranges) => std::borrow::Cow::Borrowed(&self.scope_ranges[ranges]),
            None => std::borrow::Cow::Owned(
                view.parent(die)
                    .and_then(|parent| view.ranges(parent))
                    .unwrap_or_default(),
            ),
        };
        let tag = view.tag(die);
        if tag == gimli::DW_TAG_compile_unit {
            return;
        }
        if tag == gimli::DW_TAG_call_site || tag == gimli::DW_TAG_GNU_call_site {
            self.walk.call_site_dies += 1;
            return;
        }
        if tag == gimli::DW_TAG_call_site_parameter || tag == gimli::DW_TAG_GNU_call_site_parameter
        {
            self.walk.call_site_parameter_dies += 1;
            return;
        }
        let is_param = tag == gimli::DW_TAG_formal_parameter;
        let is_local = tag == gimli::DW_TAG_variable;
        let is_constant_member =
            tag == gimli::DW_TAG_member && view.has(die, gimli::DW_AT_const_value);
        if !is_param && !is_local && !is_constant_member {
            return;
        }
        if is_local && view.has(die, gimli::DW_AT_declaration) {
            return;
        }
        let [file, line, type_] = view.find_each(
            die,
            [
                &[gimli::DW_AT_decl_file],
                &[gimli::DW_AT_decl_line],
                &[gimli::DW_AT_type],
            ],
        );
        let has_source = file.is_some() && line.is_some();
        let has_type = type_.is_some();
        let mut defer = false;
        let abstract_origin = view.abstract_origin(die);
        if let Some((origin, _)) = abstract_origin {
            if view.has(die, gimli::DW_AT_location) || view.has(die, gimli::DW_AT_const_value) {
                if let Some(vars) = abstract_vars {
                    vars.retain(|&var| var != origin);
                }
            } else {
                defer = true;
            }
        }
        let mut has_location = false;
        let mut total_covered = 0u64;
        let mut scope_covered = 0u64;
        let mut entry_value_covered = 0u64;
        let mut ranges = Vec::new();
        if view.has(die, gimli::DW_AT_const_value) {
            has_location = true;
            scope_covered = bytes_in_scope;
            total_covered = bytes_in_scope;
        } else if view.locations(die, &mut self.locations) {
            has_location = true;
            let entries = &self.locations;
            if let Some(default) = entries.iter().find(|entry| entry.range.is_none()) {
                scope_covered = bytes_in_scope;
                total_covered = bytes_in_scope;
                // The ranges only a variable's row shows.
                if self.variables {
                    let kind = location_kind(
                        default.expression,
                        view.units().units[die.unit].unit.encoding(),
                    );
                    for &(low, high) in scope_ranges().iter() {
                        ranges.push((low, high, kind));
                    }
                }
            } else {
                let scope = scope_ranges();
                let encoding = view.units().units[die.unit].unit.encoding();
                for entry in entries {
                    let Some((low, high)) = entry.range else {
                        continue;
                    };
                    total_covered = total_covered.wrapping_add(high.wrapping_sub(low));
                    let kind = location_kind(entry.expression, encoding);
                    let covered = scope.iter().fold(0u64, |sum, &scope_range| {
                        sum.wrapping_add(self.overlap((low, high), scope_range))
                    });
                    scope_covered = scope_covered.wrapping_add(covered);
                    if kind == LocationKind::EntryValue {
                        entry_value_covered = entry_value_covered.wrapping_add(covered);
                    }
                    if self.variables {
                        ranges.push((low, high, kind));
                    }
                }
            }
        }
        if bytes_in_scope != 0 && !defer {
            let bucket = bucket_of(scope_covered, bytes_in_scope);
            let non_entry = bucket_of(
                scope_covered.wrapping_sub(entry_value_covered),
                bytes_in_scope,
            );
            let walk = &mut self.walk;
            for buckets in [Some(&mut walk.all_buckets)]
                .into_iter()
                .chain([if is_param {
                    Some(&mut walk.param_buckets)
                } else if is_local {
                    Some(&mut walk.local_buckets)
                } else {
                    None
                }])
                .flatten()
            {
                buckets.processed += 1;
                buckets.counts[bucket] += 1;
                buckets.non_entry_value[non_entry] += 1;
            }
        }
        let origin = abstract_origin
            .and_then(|(_, origin)| origin)
            .unwrap_or(die);
        let name_end = self.ids.variable(view, die, origin, prefix);
        let artificial = view.has(origin, gimli::DW_AT_artificial);
        self.walk.total_bytes_covered = self.walk.total_bytes_covered.wrapping_add(total_covered);
        if bytes_in_scope != 0 {
            let walk = &mut self.walk;
            let kinds = [Some(&mut walk.all)].into_iter().chain([if is_param {
                Some(&mut walk.params)
            } else if is_local {
                Some(&mut walk.locals)
            } else {
                None
            }]);
            for sums in kinds.flatten() {
                sums.in_scope = sums.in_scope.saturating_add(bytes_in_scope);
                sums.covered = sums.covered.saturating_add(scope_covered);
                sums.entry_value = sums.entry_value.saturating_add(entry_value_covered);
            }
        }
        // The id goes into the unit's list (the file's distinct ids are
        // kept by `Walk::merge`), and a copy into the variable's row when
        // there is one.
        let row = function
            .filter(|_| self.variables)
            .map(|index| (index, self.ids.text.clone(), prefix.len()..name_end));
        let index = self.function(function);
        let ids = &mut self.walk.variable_ids;
        let text = self.ids.text.as_bytes();
        // Past 4 GiB of texts the unit is refused (`walk_unit`) before any
        // text is looked up.
        let at = TextAt {
            start: u32::try_from(ids.text.len()).unwrap_or(u32::MAX),
            len: u32::try_from(text.len()).unwrap_or(u32::MAX),
        };
        ids.text.extend_from_slice(text);
        ids.met.push(VariableId {
            function: u32::try_from(index).unwrap_or(u32::MAX),
            text: at,
            hash: ID_HASH.hash_one(text),
        });
        let in_unit_scope = function.is_none();
        let totals = &mut self.walk.totals;
        let stats = &mut self.walk.functions[index].row;
        if bytes_in_scope != 0 && !is_constant_member {
            stats.scope_bytes = stats.scope_bytes.saturating_add(bytes_in_scope);
            stats.scope_bytes_covered = stats.scope_bytes_covered.saturating_add(scope_covered);
        }
        if is_constant_member {
            totals.constant_members += 1;
            totals.unit_scope_constant_members += u64::from(in_unit_scope);
            return;
        }
        totals.with_location += u64::from(has_location);
        if artificial {
            totals.unit_scope_artificial += u64::from(in_unit_scope);
            return;
        }
        if is_param {
            stats.params += 1;
            totals.params_with_type += u64::from(has_type);
            totals.params_with_source += u64::from(has_source);
            totals.params_with_location += u64::from(has_location);
        } else {
            stats.locals += 1;
            totals.locals_with_type += u64::from(has_type);
            totals.locals_with_source += u64::from(has_source);
            totals.locals_with_location += u64::from(has_location);
        }
        if let Some((index, id, name)) = row {
            self.walk.variables.push(Variable {
                function: self.walk.functions[index].row.id.clone(),
                name: id[name].to_string(),
                id,
                is_param,
                scope_bytes: bytes_in_scope,
                covered: scope_covered,
                ranges,
                inlined: inline_depth > 0,
            });
        }
    }

    /// The bytes two ranges share, on the addresses LLVM reads.
    fn overlap(&self, a: (u64, u64), b: (u64, u64)) -> u64 {
        let to_llvm = |(low, high): (u64, u64)| {
            let start = self.file.llvm_address(low);
            (start, start.wrapping_add(high.wrapping_sub(low)))
        };
        let (a, b) = (to_llvm(a), to_llvm(b));
        let lower = a.0.max(b.0);
        let upper = a.1.min(b.1);
        upper.saturating_sub(lower)
    }
}

/// Whether the walk of a DIE of tag `tag` without children counts
/// nothing: it is no scope, no variable, parameter, member or call site
/// (what [`Walker::recurse`] and [`Walker::variable`] look at), so its
/// walk is skipped, as is a member's without `DW_AT_const_value`. Most
/// of a large file's DIEs are such (types' members, enumerators, template
/// parameters).
fn is_bare(tag: gimli::DwTag) -> bool {
    !matches!(
        tag,
        gimli::DW_TAG_subprogram
            | gimli::DW_TAG_inlined_subroutine
            | gimli::DW_TAG_lexical_block
            | gimli::DW_TAG_variable
            | gimli::DW_TAG_formal_parameter
            | gimli::DW_TAG_member
            | gimli::DW_TAG_call_site
            | gimli::DW_TAG_GNU_call_site
            | gimli::DW_TAG_call_site_parameter
            | gimli::DW_TAG_GNU_call_site_parameter
            | gimli::DW_TAG_compile_unit
    )
}

/// The coverage bucket of `covered` bytes of `in_scope`.
fn bucket_of(covered: u64, in_scope: u64) -> usize {
    if covered == 0 {
        0
    } else if covered >= in_scope {
        BUCKETS - 1
    } else {
        let percent = (100.0 * covered as f64 / in_scope as f64) as u64;
        (percent / 10) as usize + 1
    }
}

/// Where an expression puts the variable.
pub(crate) fn location_kind(
    expression: super::load::Slice<'_>,
    encoding: gimli::Encoding,
) -> LocationKind {
    let mut ops = gimli::Expression(expression).operations(encoding);
    let mut kind = None;
    while let Ok(Some(op)) = ops.next() {
        match op {
            gimli::Operation::EntryValue { .. } => return LocationKind::EntryValue,
            gimli::Operation::Register { .. } => {
                kind.get_or_insert(LocationKind::Register);
            }
            gimli::Operation::StackValue | gimli::Operation::ImplicitValue { .. } => {
                kind = Some(LocationKind::Computed);
            }
            gimli::Operation::Piece { .. } => {}
            _ => {
                kind.get_or_insert(LocationKind::Memory);
            }
        }
    }
    kind.unwrap_or(LocationKind::Computed)
}
