//! BibTeX files as reference managers export them (Zotero and Better BibTeX, JabRef,
//! Mendeley), read with typst's `biblatex` crate: its lexer finds the entries and their spans,
//! expands `@string` macros, `#` concatenations and the month macros, and decodes the LaTeX
//! of the values (`{\"u}`, `\ss`, `--`, braces) and the names. Around it, what a reader of
//! real files needs and the crate does not do:
//!
//! - `@comment{...}` and `@preamble{...}` blocks are blanked out first (the crate takes a
//!   comment to its first `}` and a preamble only in quotes);
//! - an entry written in parentheses (`@article(key, ...)`, `@string(...)`), which the crate
//!   refuses, is read as the same entry in braces;
//! - macros are expanded as BibTeX does, in file order: a value takes the definition in force
//!   where it stands (a later `@string` of the same name overrides it for what follows; the
//!   crate would keep the first), a definition sees only those before it (so that
//!   `@string{a = a}` cannot loop), and a use before any definition takes the first one.
//!   Names are case-insensitive, as in BibTeX; an undefined one is kept as its name
//!   (`journal = Nature` means "Nature" to whoever wrote it) rather than failing the file;
//! - duplicate keys are compared without case, as BibTeX does, and both lines are named;
//! - `crossref` follows BibTeX's rule (the child takes every field it lacks from its
//!   parent) plus biblatex's one mapping that matters for matching: the parent's title
//!   becomes the child's `booktitle`;
//! - a syntax error is located in its entry: the file is cut before each line that starts
//!   with `@` and the pieces are read one by one, so an unclosed brace is blamed on its
//!   entry, not on the end of the file where the lexer noticed it;
//! - quoted values are read as braced ones (the crate ends `"a {"}b"` at its second quote);
//!   `\'\i` is read as `\' i` (the crate does not nest commands);
//! - verbatim fields (`url`, `doi`...) are read from the source, without Mendeley's `\_`,
//!   `\%` escapes; the other fields get `~` as a space, TeX quotes as curly quotes and their
//!   whitespace collapsed;
//! - an `=` in a name is not taken for biblatex's `family=..., given=...` form.
//!
//! Hostile files are refused, each in time linear in its size, by [`Budgets`]: the input's
//! bytes, the bytes all macro uses add, and how deeply braces nest (the crate's decoding of a
//! value is quadratic in its nesting). An entry that does not close ends the search for the
//! entries after it (it cannot be read whatever follows), so `"@a{" * 80000` is one scan.

use std::collections::HashMap;

use biblatex::{Bibliography, ChunksExt, Field, ParseErrorKind, Person, RawBibliography, RawChunk, Spanned, Token};

/// One entry, its values as plain Unicode text.
#[derive(Debug, Clone, PartialEq)]
pub struct BibEntry {
    pub key: String,
    /// As written, in lower case (`article`, `inproceedings`...).
    pub entry_type: String,
    /// Lower-case names in the order of the source, inherited ones last.
    pub fields: Vec<(String, String)>,
    /// "Family, Given" (or "von Family, Jr, Given"; a corporate name alone), without a
    /// final `others`.
    pub authors: Vec<String>,
    /// The author list ended with `and others`.
    pub et_al: bool,
    pub editors: Vec<String>,
    pub editors_et_al: bool,
    /// 1-based line of the entry's `@`.
    pub line: usize,
    /// The entry's source text, from `@` to its closing brace.
    pub raw: String,
}

/// A file that cannot be read; `message` names the entry and the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BibError {
    pub message: String,
    /// The entry's key when it could be read.
    pub key: Option<String>,
    /// 1-based position of the entry among the file's `@` items (comments excluded).
    pub ordinal: usize,
    /// 1-based line of the entry's `@`.
    pub line: usize,
    /// What the file breaks: [`SYNTAX`], the name of the budget it is over (`max_bytes`...), or
    /// [`MACRO_PARTS`].
    pub rule: &'static str,
}

/// The [`BibError::rule`] of a file that does not read as BibTeX.
pub const SYNTAX: &str = "BibTeX syntax";
/// The [`BibError::rule`] of a file whose macro uses add more than [`MAX_EXPANDED_PARTS`] parts
/// (a fixed cap, not a budget of [`Budgets`]).
pub const MACRO_PARTS: &str = "macro parts";

/// Fields whose parent value is not the child's own (biblatex's `crossref` rules).
const NOT_INHERITED: &[&str] =
    &["crossref", "xref", "ids", "entryset", "title", "subtitle", "shorttitle", "titleaddon"];
/// The name a `crossref` field is kept under while the crate resolves the file, so that it
/// leaves the inheritance to [`inherit_crossrefs`].
const HIDDEN_CROSSREF: &str = "paperlens-crossref";

/// What a file may cost: past one, the file is refused with an error naming the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    /// The file's size in bytes.
    pub max_bytes: usize,
    /// The bytes that all macro uses of the file add (a definition used 5,000 times adds its
    /// value 5,000 times).
    pub max_expanded_bytes: usize,
    /// How deeply braces may nest (real files: a few levels).
    pub max_brace_depth: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets { max_bytes: 64 << 20, max_expanded_bytes: 64 << 20, max_brace_depth: 100 }
    }
}

/// The entries of a BibTeX file, in file order, within the default [`Budgets`].
pub fn read_bibtex(src: &str) -> Result<Vec<BibEntry>, BibError> {
    read_bibtex_within(src, &Budgets::default())
}

/// The entries of a BibTeX file, in file order. A byte order mark is skipped (offsets and
/// lines count from after it). A file over one of `budgets` is refused with an error naming
/// the budget.
pub fn read_bibtex_within(src: &str, budgets: &Budgets) -> Result<Vec<BibEntry>, BibError> {
    if src.len() > budgets.max_bytes {
        let rule = format!("the file has {} bytes, more than max_bytes ({})", src.len(), budgets.max_bytes);
        let message = format!("BibTeX file refused: {rule}");
        return Err(BibError { message, key: None, ordinal: 0, line: 1, rule: "max_bytes" });
    }
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    check_brace_depth(src, budgets.max_brace_depth)?;
    let blanked = braced_quotes(braced_entries(blank_comments(src)))?;
    let first = RawBibliography::parse(&blanked)
        .map_err(|error| locate_syntax_error(&blanked, error.span.start, &error.kind))?;
    let stand_ins = StandIns::absent_from(src);
    let masked = typography(&blanked, &text_spans(&first), &stand_ins);
    drop(first);
    let mut raw =
        RawBibliography::parse(&masked).map_err(|error| locate_syntax_error(&masked, error.span.start, &error.kind))?;
    let lines = Lines::new(src);
    check_duplicate_keys(src, &masked, &raw, &lines)?;
    expand_macros(&mut raw, budgets.max_expanded_bytes).map_err(|(position, over)| {
        let (rule, said) = match over {
            Overspent::Bytes => ("max_expanded_bytes", format!("max_expanded_bytes ({})", budgets.max_expanded_bytes)),
            Overspent::Parts => (MACRO_PARTS, format!("{MAX_EXPANDED_PARTS} parts (a fixed cap)")),
        };
        let error =
            entry_error(src, &masked, entry_at(&masked, position), &format!("its macros expand to more than {said}"));
        BibError { rule, ..error }
    })?;
    let mut layout = Vec::with_capacity(raw.entries.len());
    for entry in &mut raw.entries {
        for pair in &mut entry.v.fields {
            if pair.key.v.eq_ignore_ascii_case("crossref") {
                pair.key.v = HIDDEN_CROSSREF;
            }
        }
        let order: Vec<String> = entry.v.fields.iter().map(|pair| field_name(pair.key.v)).collect();
        let verbatim: HashMap<String, String> = entry.v.fields.iter().filter_map(verbatim_source).collect();
        layout.push((entry.span.clone(), entry.v.kind.v.to_ascii_lowercase(), order, verbatim));
    }
    let bibliography = Bibliography::from_raw(raw)
        .map_err(|error| entry_error(src, &masked, entry_at(&masked, error.span.start), &describe(&error.kind)))?;
    let mut entries: Vec<BibEntry> = bibliography
        .iter()
        .zip(layout)
        .map(|(entry, (span, entry_type, order, verbatim))| {
            let mut fields: Vec<(String, String)> = Vec::with_capacity(order.len());
            for name in order {
                if let Some(chunks) = entry.fields.get(&name) {
                    let shown = if name == HIDDEN_CROSSREF { "crossref".to_string() } else { name.clone() };
                    if !fields.iter().any(|(seen, _)| *seen == shown) {
                        let value = match verbatim.get(&name) {
                            Some(source) => unescape_verbatim(source),
                            None => plain_text(&name, &chunks.format_verbatim(), &stand_ins),
                        };
                        fields.push((shown, value.split_whitespace().collect::<Vec<_>>().join(" ")));
                    }
                }
            }
            let (authors, et_al) = names(entry.get_as::<Vec<Person>>("author").unwrap_or_default(), &stand_ins);
            let (editors, editors_et_al) = names(entry.get_as::<Vec<Person>>("editor").unwrap_or_default(), &stand_ins);
            BibEntry {
                key: entry.key.clone(),
                entry_type,
                fields,
                authors,
                et_al,
                editors,
                editors_et_al,
                line: lines.of(span.start),
                raw: src[span.start..entry_end(src, span.end)].to_string(),
            }
        })
        .collect();
    inherit_crossrefs(&mut entries);
    Ok(entries)
}

fn field_name(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// `src` with every `@comment` and `@preamble` block (a line starting with one, to its
/// matching closing brace) replaced by spaces, newlines kept: offsets and lines stay valid.
fn blank_comments(src: &str) -> String {
    let bytes = src.as_bytes();
    let mut out = bytes.to_vec();
    let mut line_start = 0;
    while line_start < bytes.len() {
        let at =
            line_start + bytes[line_start..].iter().take_while(|c| c.is_ascii_whitespace() && **c != b'\n').count();
        if bytes.get(at) == Some(&b'@') {
            if let Some(end) = comment_block_end(bytes, at) {
                for byte in &mut out[at..end] {
                    if *byte != b'\n' {
                        *byte = b' ';
                    }
                }
            }
        }
        line_start = bytes[at..].iter().position(|&c| c == b'\n').map_or(bytes.len(), |n| at + n + 1);
    }
    // Whole UTF-8 sequences were blanked (every byte of a block, none outside it).
    String::from_utf8(out).expect("blanking keeps UTF-8")
}

/// The end of the `@comment` or `@preamble` block at `at` (after its closing brace, or the
/// end of the file when it has none), or None when `at` starts another kind of entry.
fn comment_block_end(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = &bytes[at + 1..];
    let word_len = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let word = std::str::from_utf8(&rest[..word_len]).ok()?.to_ascii_lowercase();
    if word != "comment" && word != "preamble" {
        return None;
    }
    let mut i = at + 1 + word_len;
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let close = match bytes.get(i) {
        Some(b'{') => b'}',
        Some(b'(') => b')',
        _ => return Some(at + 1 + word_len), // a bare `@comment`: the rest of the line is text
    };
    let open = bytes[i];
    let mut depth = 0usize;
    for (n, &c) in bytes[i..].iter().enumerate() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i + n + 1);
            }
        }
    }
    Some(bytes.len())
}

/// `text` with the parentheses that delimit an entry (`@article(key, ...)`, `@string(...)`:
/// BibTeX's other form, which the crate refuses) turned into braces, one byte for one so that
/// offsets and lines hold. The closing one is found as the crate reads a value (braces nest,
/// a backslash escapes the next character, quotes end at their first `"` outside braces), so
/// a parenthesis inside a value is left alone; an entry without one is left to fail, and
/// ends the search: nothing after it can be read, and a search from each later `@` to the
/// end of the file would make `"@a{" * 80000` quadratic.
fn braced_entries(text: String) -> String {
    let mut bytes = text.into_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' => at += bytes[at..].iter().position(|&c| c == b'\n').unwrap_or(bytes.len() - at),
            b'@' => {
                let word = bytes[at + 1..].iter().take_while(|&&c| is_identifier(c)).count();
                let open =
                    at + 1 + word + bytes[at + 1 + word..].iter().take_while(|c| c.is_ascii_whitespace()).count();
                let close = match bytes.get(open) {
                    Some(b'(') if word > 0 => closing_delimiter(&bytes, open, b')').inspect(|&close| {
                        (bytes[open], bytes[close]) = (b'{', b'}');
                    }),
                    Some(b'{') => closing_delimiter(&bytes, open, b'}'),
                    _ => Some(at),
                };
                match close {
                    Some(close) => at = close,
                    None => break,
                }
            }
            _ => {}
        }
        at += 1;
    }
    String::from_utf8(bytes).expect("ASCII for ASCII keeps UTF-8")
}

/// The `close` (`)` or `}`) that ends the entry opened at `open`: the first one outside the
/// values' braces and quotes and the `%` comments between fields.
fn closing_delimiter(bytes: &[u8], open: usize, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = open + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            c if c == close && depth == 0 => return Some(at),
            b'{' => depth += 1,
            b'}' => depth = depth.checked_sub(1)?,
            b'"' if depth == 0 => at = closing_quote(bytes, at)?,
            // A comment after a key or a field (`title = {x}, % note`), as the crate reads it;
            // not a `%` in a key (`@misc(50%, ...)`).
            b'%' if depth == 0 && (bytes[at - 1].is_ascii_whitespace() || bytes[at - 1] == b',') => {
                at += bytes[at..].iter().position(|&c| c == b'\n')?;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// A byte of an entry type's name (`@InProceedings`), as the crate reads it.
fn is_identifier(c: u8) -> bool {
    !matches!(c, b'@' | b'{' | b'}' | b'"' | b'#' | b'\'' | b'(' | b')' | b',' | b'=' | b'%' | b'\\' | b'~')
        && !c.is_ascii_control()
        && !c.is_ascii_whitespace()
}

/// `text` with the quotes around each quoted value turned into braces (the same value to
/// BibTeX): the crate ends a quoted value at its first `"`, even one in braces (`"a {"}b"`),
/// and silently drops the rest of the entry. Read again until no quoted value is left, as
/// the fields after a cut are seen only then; each reading is linear, and an entry that would
/// need more than [`MAX_QUOTE_PASSES`] (as many values cut so) is refused.
fn braced_quotes(mut text: String) -> Result<String, BibError> {
    for _ in 0..MAX_QUOTE_PASSES {
        let raw =
            RawBibliography::parse(&text).map_err(|error| locate_syntax_error(&text, error.span.start, &error.kind))?;
        let pairs = raw.abbreviations.iter().chain(raw.entries.iter().flat_map(|entry| entry.v.fields.iter()));
        let opening: Vec<usize> = pairs
            .flat_map(|pair| pair.value.v.iter())
            .filter(|chunk| matches!(chunk.v, RawChunk::Normal(_)))
            .filter_map(|chunk| chunk.span.start.checked_sub(1))
            .filter(|&at| text.as_bytes()[at] == b'"')
            .collect();
        let mut bytes = text.into_bytes();
        let mut changed = false;
        for at in opening {
            if let Some(close) = closing_quote(&bytes, at) {
                (bytes[at], bytes[close]) = (b'{', b'}');
                changed = true;
            }
        }
        text = String::from_utf8(bytes).expect("ASCII for ASCII keeps UTF-8");
        if !changed {
            return Ok(text);
        }
    }
    let raw =
        RawBibliography::parse(&text).map_err(|error| locate_syntax_error(&text, error.span.start, &error.kind))?;
    let cut = raw.entries.iter().flat_map(|entry| entry.v.fields.iter()).flat_map(|pair| pair.value.v.iter()).find_map(
        |chunk| {
            chunk
                .span
                .start
                .checked_sub(1)
                .filter(|&at| text.as_bytes()[at] == b'"' && matches!(chunk.v, RawChunk::Normal(_)))
        },
    );
    let rule = format!("more than {MAX_QUOTE_PASSES} quoted values holding a quote in braces (\"a {{\"}}b\")");
    Err(entry_error(&text, &text, entry_at(&text, cut.unwrap_or(0)), &rule))
}

/// How many quoted values holding a `{"}` one entry may have (each costs a reading of the
/// file); real files have one or two.
const MAX_QUOTE_PASSES: usize = 32;

/// The quote that closes the value opened by the quote at `open`: the first one outside
/// braces, not escaped.
fn closing_quote(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = open + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'{' => depth += 1,
            b'}' => depth = depth.checked_sub(1)?,
            b'"' if depth == 0 => return Some(at),
            _ => {}
        }
        at += 1;
    }
    None
}

/// How many parts (quoted or braced pieces, numbers) all macro uses may add to a file:
/// far more than real files need, few enough to refuse a chain of definitions that each
/// double the previous one before it fills the memory (with [`Budgets::max_expanded_bytes`]
/// for their text).
pub const MAX_EXPANDED_PARTS: usize = 1 << 21;

/// Refuses braces nested deeper than `max_depth` (counted over the file; a stray `}` does not
/// go below zero), naming the entry where it happens.
fn check_brace_depth(src: &str, max_depth: usize) -> Result<(), BibError> {
    let mut depth = 0usize;
    for (at, byte) in src.bytes().enumerate() {
        match byte {
            b'{' => {
                depth += 1;
                if depth > max_depth {
                    let rule = format!("braces nest more than max_brace_depth ({max_depth}) deep");
                    let error = entry_error(src, src, entry_at(src, at), &rule);
                    return Err(BibError { rule: "max_brace_depth", ..error });
                }
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Each macro use replaced by the value of the definition in force where it stands (the
/// last one before it; a use before any definition takes the first one), the definitions
/// themselves expanded when they are read, seeing only those before them, as BibTeX does.
/// Names ignore case; an undefined name that is not a month is kept as its own text, a month
/// is left to the crate. Err: the offset of the value whose expansion went over
/// [`MAX_EXPANDED_PARTS`] or `max_bytes`, and which of the two.
fn expand_macros(raw: &mut RawBibliography<'_>, max_bytes: usize) -> Result<(), (usize, Overspent)> {
    let mut budget = Budget { parts: MAX_EXPANDED_PARTS, bytes: max_bytes };
    let mut defined = Definitions::new();
    for pair in std::mem::take(&mut raw.abbreviations) {
        let value = expand(&pair.value.v, &defined, false, &mut budget).map_err(|over| (pair.key.span.start, over))?;
        defined.entry(pair.key.v.to_lowercase()).or_default().push((pair.key.span.start, value));
    }
    for pair in raw.entries.iter_mut().flat_map(|entry| entry.v.fields.iter_mut()) {
        let at = pair.value.span.start;
        pair.value.v = expand(&pair.value.v, &defined, true, &mut budget).map_err(|over| (at, over))?;
    }
    Ok(())
}

/// The `@string` definitions of each name (in lower case), in file order: the offset of the
/// name defined, and the value with its own macro uses expanded.
type Definitions<'s> = HashMap<String, Vec<(usize, Field<'s>)>>;

/// What macro uses may still add: parts, and bytes of their text.
struct Budget {
    parts: usize,
    bytes: usize,
}

/// The limit of [`Budget`] that macro uses went over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overspent {
    Parts,
    Bytes,
}

impl Budget {
    /// Takes what `definition` adds; Err when it is more than is left.
    fn take(&mut self, definition: &Field<'_>) -> Result<(), Overspent> {
        let bytes = definition.iter().map(|chunk| chunk_text(&chunk.v).len()).sum();
        self.parts = self.parts.checked_sub(definition.len()).ok_or(Overspent::Parts)?;
        self.bytes = self.bytes.checked_sub(bytes).ok_or(Overspent::Bytes)?;
        Ok(())
    }
}

fn chunk_text<'s>(chunk: &RawChunk<'s>) -> &'s str {
    match *chunk {
        RawChunk::Normal(text) | RawChunk::Abbreviation(text) => text,
    }
}

/// `value` with its macro uses expanded from `defined` (see [`expand_macros`]); a use before
/// every definition of its name takes the first one when `forward`. Err when what is added
/// exceeds `budget`.
fn expand<'s>(
    value: &Field<'s>,
    defined: &Definitions<'s>,
    forward: bool,
    budget: &mut Budget,
) -> Result<Field<'s>, Overspent> {
    let mut out = Vec::with_capacity(value.len());
    for chunk in value {
        let RawChunk::Abbreviation(name) = chunk.v else {
            out.push(chunk.clone());
            continue;
        };
        let definitions = defined.get(&name.to_lowercase()).map_or(&[][..], Vec::as_slice);
        let before = definitions.partition_point(|(at, _)| *at < chunk.span.start);
        let in_force = before.checked_sub(1).map(|n| &definitions[n]);
        match in_force.or_else(|| definitions.first().filter(|_| forward)) {
            Some((_, definition)) => {
                budget.take(definition)?;
                out.extend(definition.iter().cloned());
            }
            None if is_month(name) => out.push(chunk.clone()),
            None => out.push(Spanned::new(RawChunk::Normal(name), chunk.span.clone())),
        }
    }
    Ok(out)
}

fn is_month(name: &str) -> bool {
    const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
    MONTHS.iter().any(|month| month.eq_ignore_ascii_case(name))
}

fn check_duplicate_keys(src: &str, masked: &str, raw: &RawBibliography<'_>, lines: &Lines) -> Result<(), BibError> {
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for entry in &raw.entries {
        let line = lines.of(entry.span.start);
        if let Some(first) = first_line.insert(entry.v.key.v.to_lowercase(), line) {
            let rule = format!("duplicate key (the key of the entry at line {first} too)");
            return Err(entry_error(src, masked, entry.span.start, &rule));
        }
    }
    Ok(())
}

/// The error of a file that the lexer refused at `position`: the first piece (the text
/// between two lines starting with `@`) that does not read on its own is the culprit.
fn locate_syntax_error(masked: &str, position: usize, kind: &ParseErrorKind) -> BibError {
    let starts = entry_starts(masked);
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(masked.len());
        if let Err(error) = RawBibliography::parse(&masked[start..end]) {
            let near = start + error.span.start;
            // The lexer notices an unclosed brace where the piece ends, whatever it expected.
            let rule = if masked[near.min(end)..end].trim().is_empty() {
                "unclosed brace or quote: the entry does not end before the next one".to_string()
            } else {
                format!("{} near line {}", describe(&error.kind), line_of(masked, near))
            };
            return entry_error(masked, masked, start, &rule);
        }
    }
    let rule = format!("{} near line {}", describe(kind), line_of(masked, position));
    entry_error(masked, masked, entry_at(masked, position), &rule)
}

/// The offset of the `@` of the entry that holds `position` (the first entry's when none
/// starts before it).
fn entry_at(masked: &str, position: usize) -> usize {
    let starts = entry_starts(masked);
    starts.iter().rev().find(|&&start| start <= position).or(starts.first()).copied().unwrap_or(0)
}

/// Offsets of the `@` of each line that starts with one (comments already blanked).
fn entry_starts(masked: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in masked.split_inclusive('\n') {
        let indent = line.len() - line.trim_start().len();
        if line[indent..].starts_with('@') {
            starts.push(offset + indent);
        }
        offset += line.len();
    }
    starts
}

/// The error naming the entry whose `@` is at `start`: its key when readable, else its
/// ordinal, and its line.
fn entry_error(src: &str, masked: &str, start: usize, rule: &str) -> BibError {
    let ordinal = entry_starts(&masked[..start]).len() + 1;
    let line = line_of(src, start);
    let key = entry_key(&masked[start..]);
    let message = match &key {
        Some(key) => format!("BibTeX entry {key:?} (line {line}): {rule}"),
        None => format!("BibTeX entry #{ordinal} (line {line}, its key unreadable): {rule}"),
    };
    BibError { message, key, ordinal, line, rule: SYNTAX }
}

/// The key of the entry that `text` starts with (`@type{key,`), or `@string` for a macro
/// definition.
fn entry_key(text: &str) -> Option<String> {
    let rest = text.strip_prefix('@')?;
    let kind_len = rest.find(|c: char| !c.is_alphanumeric() && c != '_' && c != '-').unwrap_or(rest.len());
    let (kind, rest) = rest.split_at(kind_len);
    if kind.eq_ignore_ascii_case("string") {
        return Some("@string".to_string());
    }
    let rest = rest.trim_start().strip_prefix(['{', '('])?.trim_start();
    let key: String = rest
        .chars()
        .take_while(|&c| !matches!(c, ',' | '}' | ')' | '@') && !c.is_whitespace() && !c.is_control())
        .collect();
    let after = rest[key.len()..].trim_start();
    (!key.is_empty() && after.starts_with(',')).then_some(key)
}

fn describe(kind: &ParseErrorKind) -> String {
    match kind {
        ParseErrorKind::Expected(Token::Comma) => {
            "a comma is missing (after the key or between two fields)".to_string()
        }
        ParseErrorKind::Expected(Token::Equals) => "a field name is not followed by '='".to_string(),
        ParseErrorKind::Expected(Token::OpeningBrace) => {
            "the entry's type is not followed by '{' or by a '(' that a ')' closes".to_string()
        }
        ParseErrorKind::Unexpected(Token::ClosingBrace) => "a closing brace has no opening one".to_string(),
        other => other.to_string(),
    }
}

/// The 1-based line of each offset, from the offsets of the newlines (found once: a line
/// counted from the start for each entry made large files quadratic).
struct Lines(Vec<usize>);

impl Lines {
    fn new(src: &str) -> Self {
        Lines(src.match_indices('\n').map(|(at, _)| at).collect())
    }

    fn of(&self, offset: usize) -> usize {
        self.0.partition_point(|&at| at < offset) + 1
    }
}

/// 1-based line of the byte at `offset`.
fn line_of(src: &str, offset: usize) -> usize {
    src.as_bytes()[..offset.min(src.len())].iter().filter(|&&c| c == b'\n').count() + 1
}

/// The end of the entry whose fields end at `fields_end`: after its closing delimiter.
fn entry_end(src: &str, fields_end: usize) -> usize {
    let rest = &src[fields_end..];
    let blank = rest.len() - rest.trim_start().len();
    match rest[blank..].chars().next() {
        Some(c @ ('}' | ')')) => fields_end + blank + c.len_utf8(),
        _ => fields_end,
    }
}

/// A value decoded by the crate as plain text.
fn plain_text(field: &str, value: &str, stand_ins: &StandIns) -> String {
    if is_verbatim(field) {
        unescape_verbatim(value)
    } else {
        stand_ins.restore(value)
    }
}

/// The name and source text of a verbatim field (`url`, `doi`...) written without macros:
/// read from the source, as the crate turns `--` into a dash there and drops the `{}` of
/// `\textasciitilde{}` (a URL's `~`).
fn verbatim_source(pair: &biblatex::Pair<'_>) -> Option<(String, String)> {
    let name = field_name(pair.key.v);
    let parts: Option<Vec<&str>> = pair
        .value
        .v
        .iter()
        .map(|chunk| match chunk.v {
            RawChunk::Normal(text) => Some(text),
            RawChunk::Abbreviation(_) => None,
        })
        .collect();
    is_verbatim(&name).then(|| parts.map(|parts| (name, parts.concat()))).flatten()
}

/// The spans of the values that are text (not verbatim fields such as `url`), macro
/// definitions included, in file order; each with whether it is a list of names.
fn text_spans(raw: &RawBibliography<'_>) -> Vec<(std::ops::Range<usize>, bool)> {
    let pairs = raw.abbreviations.iter().chain(raw.entries.iter().flat_map(|entry| entry.v.fields.iter()));
    let mut spans: Vec<_> = pairs
        .map(|pair| (field_name(pair.key.v), pair.value.span.clone()))
        .filter(|(name, _)| !is_verbatim(name))
        .map(|(name, span)| (span, name == "author" || name == "editor"))
        .collect();
    spans.sort_by_key(|(span, _)| span.start);
    spans
}

/// TeX's typography in text values, where the crate keeps the characters: a `~` (not `\~`)
/// is a space, and ``` `` ``` and `''` are curly quotes. Each is replaced before the crate reads
/// the text by a stand-in of the same length, so that offsets hold and `'{}'` (two
/// apostrophes on purpose) is not taken for a quote.
fn typography(text: &str, spans: &[(std::ops::Range<usize>, bool)], stand_ins: &StandIns) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, is_names) in spans {
        out.push_str(&text[at..span.start]);
        let value = &text[span.clone()];
        // An `=` in a name is taken by the crate for biblatex's `family=..., given=...`.
        let equals = stand_ins.equals.filter(|_| *is_names && !is_extended_name_format(value));
        let mut chars = value.char_indices().peekable();
        let mut escaped = false;
        while let Some((at, c)) = chars.next() {
            let next = chars.peek().map(|&(_, n)| n);
            if let Some(letter) = accented_dotless(&value[at..]).filter(|_| !escaped) {
                // `\'\i`: the crate does not nest commands; `\' i` is the same accent on `i`.
                out.push('\\');
                out.extend(chars.next().map(|(_, accent)| accent));
                out.push(' ');
                out.push(letter);
                chars.next();
                chars.next();
                continue;
            }
            match (c, next) {
                ('~', _) if !escaped => out.push(' '),
                ('=', _) if equals.is_some() => out.extend(equals),
                ('`', Some('`')) if !escaped => {
                    chars.next();
                    out.push(stand_ins.open);
                }
                ('\'', Some('\'')) if !escaped => {
                    chars.next();
                    out.push(stand_ins.close);
                }
                _ => out.push(c),
            }
            escaped = c == '\\' && !escaped;
        }
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The letter of a dotless `\i` or `\j` under an accent that `text` starts with (`\'\i`).
fn accented_dotless(text: &str) -> Option<char> {
    let bytes = text.as_bytes();
    let accent = matches!(bytes.get(1), Some(b'\'' | b'"' | b'^' | b'`' | b'~' | b'=' | b'.' | b'u' | b'v'));
    let dotless = bytes.get(2) == Some(&b'\\') && matches!(bytes.get(3), Some(b'i' | b'j'));
    let ends = !bytes.get(4).is_some_and(u8::is_ascii_alphabetic);
    (bytes.first() == Some(&b'\\') && accent && dotless && ends).then(|| char::from(bytes[3]))
}

/// Characters that a text does not hold, to stand in for its TeX quotes (two of two UTF-8
/// bytes, as ``` `` ``` and `''`) and for `=` in names (a control character, of one byte).
struct StandIns {
    open: char,
    close: char,
    equals: Option<char>,
}

impl StandIns {
    fn absent_from(text: &str) -> Self {
        let mut free = ('\u{0080}'..='\u{07ff}').rev().filter(|&c| !text.contains(c));
        let (open, close) = (free.next().unwrap_or('\u{07ff}'), free.next().unwrap_or('\u{07fe}'));
        let equals = ('\u{01}'..='\u{08}').chain('\u{0e}'..='\u{1f}').find(|&c| !text.contains(c));
        StandIns { open, close, equals }
    }

    fn restore(&self, value: &str) -> String {
        let text = value.replace(self.open, "\u{201c}").replace(self.close, "\u{201d}");
        match self.equals {
            Some(equals) => text.replace(equals, "="),
            None => text,
        }
    }
}

/// Whether a list of names is written in biblatex's `family=Doe, given=Jane` form.
fn is_extended_name_format(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    ["family", "given", "prefix", "suffix"]
        .iter()
        .any(|part| lower.match_indices(part).any(|(at, _)| lower[at + part.len()..].trim_start().starts_with('=')))
}

fn is_verbatim(field: &str) -> bool {
    matches!(field, "file" | "doi" | "uri" | "eprint" | "pdf" | "url" | "urlraw" | "verba" | "verbb" | "verbc")
}

/// Mendeley escapes LaTeX's specials in URLs (`a\_b`, `50\%`) and writes a backslash as
/// `$\backslash$`, other writers `\textasciitilde{}`...; a URL means the characters themselves.
fn unescape_verbatim(value: &str) -> String {
    // The crate drops the `{}` after a command in some values and keeps it in others.
    const ESCAPES: [(&str, &str); 16] = [
        ("$\\backslash$", "\\"),
        ("\\textbackslash{}", "\\"),
        ("\\textasciitilde{}", "~"),
        ("\\textasciicircum{}", "^"),
        ("\\textbackslash", "\\"),
        ("\\textasciitilde", "~"),
        ("\\textasciicircum", "^"),
        ("\\_", "_"),
        ("\\%", "%"),
        ("\\&", "&"),
        ("\\#", "#"),
        ("\\$", "$"),
        ("\\{", "{"),
        ("\\}", "}"),
        ("\\~", "~"),
        ("\\\\", "\\"),
    ];
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        let escape = ESCAPES.iter().find(|(escape, _)| {
            rest.starts_with(escape)
                && !(escape.ends_with(|c: char| c.is_ascii_alphabetic())
                    && rest[escape.len()..].starts_with(|c: char| c.is_ascii_alphabetic()))
        });
        match escape {
            Some((escape, plain)) => {
                out.push_str(plain);
                rest = &rest[escape.len()..];
            }
            None => {
                if c != '{' && c != '}' {
                    out.push(c);
                }
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// "Family, Given" of each person, and whether the list ended with `others`.
fn names(mut persons: Vec<Person>, stand_ins: &StandIns) -> (Vec<String>, bool) {
    let et_al = persons.last().is_some_and(|p| p.name == "others" && p.given_name.is_empty() && p.prefix.is_empty());
    if et_al {
        persons.pop();
    }
    let names = persons
        .into_iter()
        .map(|p| {
            let family = [p.prefix.as_str(), p.name.as_str()]
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            let parts = [family.as_str(), p.suffix.as_str(), p.given_name.as_str()];
            let text = parts.iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join(", ");
            stand_ins.restore(&text).split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect();
    (names, et_al)
}

/// Each entry with a `crossref` takes the fields it lacks from the entry named (found without
/// case), the parent's title as its `booktitle`, and the parent's names with its fields.
fn inherit_crossrefs(entries: &mut [BibEntry]) {
    let index: HashMap<String, usize> = entries.iter().enumerate().map(|(n, e)| (e.key.to_lowercase(), n)).collect();
    for n in 0..entries.len() {
        let Some(parent_key) = entries[n].field("crossref").map(str::to_lowercase) else { continue };
        let Some(&parent) = index.get(&parent_key).filter(|&&p| p != n) else { continue };
        let parent = entries[parent].clone();
        let child = &mut entries[n];
        for (name, value) in &parent.fields {
            if !NOT_INHERITED.contains(&name.as_str()) && child.field(name).is_none() {
                child.fields.push((name.clone(), value.clone()));
                match name.as_str() {
                    "author" => (child.authors, child.et_al) = (parent.authors.clone(), parent.et_al),
                    "editor" => (child.editors, child.editors_et_al) = (parent.editors.clone(), parent.editors_et_al),
                    _ => {}
                }
            }
        }
        if child.field("booktitle").is_none() {
            if let Some(title) = parent.field("title") {
                child.fields.push(("booktitle".to_string(), title.to_string()));
            }
        }
    }
}

impl BibEntry {
    /// The value of field `name` (lower case).
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> BibError {
        read_bibtex(text).expect_err("a malformed file")
    }

    #[test]
    fn an_unclosed_brace_is_blamed_on_its_entry_not_on_the_end_of_the_file() {
        let error = error_of("@misc{a, title={x}}\n@misc{b,\n title = {open {x},\n}\n@misc{c, title={y}}\n");
        assert_eq!((error.key.as_deref(), error.ordinal, error.line), (Some("b"), 2, 2));
        assert!(error.message.contains("unclosed brace"), "{}", error.message);
    }

    #[test]
    fn duplicate_keys_name_both_lines() {
        let error = error_of("@misc{Key, title={x}}\n\n@misc{key, title={y}}");
        assert_eq!((error.key.as_deref(), error.line), (Some("key"), 3));
        assert!(error.message.contains("at line 1"), "{}", error.message);
    }

    #[test]
    fn comments_with_braces_and_braced_preambles_are_skipped() {
        let entries =
            read_bibtex("@comment{x {y} z}\n@preamble{{\\def\\x{}}}\n@misc{a, title = \"{\"}q{\"}\", year = 2001}")
                .unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].fields, vec![("title".into(), "\"q\"".into()), ("year".into(), "2001".into())]);
        assert_eq!(entries[0].line, 3);
    }

    #[test]
    fn verbatim_fields_keep_their_characters() {
        let entries = read_bibtex("@misc{a, url = {https://h/~u/a\\_b--c\\textasciitilde{}d}}").unwrap();
        assert_eq!(entries[0].field("url"), Some("https://h/~u/a_b--c~d"));
    }

    #[test]
    fn entries_in_parentheses_read_as_in_braces_with_parentheses_in_their_values_kept() {
        let text = "@string(j = \"Acta (B)\")\n@Article(p1, % (p1\n  title = {A (b) c) d}, % a ) b\n  \
                    note = \"e ) f\",\n  journal = j # \" (x)\"\n)\n@misc{b2, title = {g (h}}\n  \
                    @book ( p3 , title = \"{)}\" )\n@misc(50%, note = {x})";
        let entries = read_bibtex(text).unwrap();
        let values: Vec<_> = entries.iter().map(|e| (e.key.as_str(), e.line, e.fields.clone())).collect();
        let fields = |pairs: &[(&str, &str)]| pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        assert_eq!(
            values,
            vec![
                ("p1", 2, fields(&[("title", "A (b) c) d"), ("note", "e ) f"), ("journal", "Acta (B) (x)")])),
                ("b2", 7, fields(&[("title", "g (h")])),
                ("p3", 8, fields(&[("title", ")")])),
                ("50%", 9, fields(&[("note", "x")])),
            ]
        );
        assert_eq!(entries[0].raw, text[text.find("@Article").unwrap()..text.find("\n)\n").unwrap() + 2]);
        assert_eq!(entries[2].raw, "@book ( p3 , title = \"{)}\" )");
    }

    #[test]
    fn an_error_in_an_entry_in_parentheses_is_located_on_its_own_line() {
        let missing_comma = error_of("@misc(a, title={x})\n@article(b\n title = {y})\n@misc(c, title={z})\n");
        assert_eq!((missing_comma.key, missing_comma.ordinal, missing_comma.line), (None, 2, 2));
        let unclosed = error_of("@misc(a, title={x})\n\n@article(b, title = {y (z}\n@misc(c, title={z})\n");
        assert_eq!((unclosed.key.as_deref(), unclosed.ordinal, unclosed.line), (Some("b"), 2, 3));
        let unclosed = error_of("@misc(a, title={x})\n@article(b, title = {y}\n");
        assert_eq!((unclosed.key.as_deref(), unclosed.line), (Some("b"), 2));
        assert!(unclosed.message.contains("a '(' that a ')' closes"), "{}", unclosed.message);
        let duplicate = error_of("@misc(a, title={x})\n@misc(A, title={y})");
        assert_eq!((duplicate.key.as_deref(), duplicate.line), (Some("A"), 2));
    }

    #[test]
    fn a_macro_defined_again_holds_for_the_entries_after_it() {
        let text = "@misc{early, journal = j}\n@string{j = \"A\"}\n@misc{first, journal = j # { } # k}\n\
                    @string{k = j # \"+\"}\n@STRING(J = \"B\")\n@misc{second, journal = j # { } # k, month = J}\n";
        let journals: Vec<_> =
            read_bibtex(text).unwrap().iter().map(|e| (e.key.clone(), e.fields[0].1.clone())).collect();
        // `k` was defined while `j` was "A"; `first` uses it before it is defined (its first
        // definition, as undefined uses are kept readable rather than empty).
        let expected = [("early", "A"), ("first", "A A+"), ("second", "B A+")];
        assert_eq!(journals, expected.map(|(key, value)| (key.to_string(), value.to_string())));
    }

    #[test]
    fn a_macro_defined_by_itself_or_in_a_cycle_does_not_loop() {
        // A definition sees only those before it: `a` in `a` is undefined, so is `c` in `b`.
        let text = "@string{a = a # \"x\"}\n@string{b = c}\n@string{c = b}\n@misc{k, title = a # b # c}";
        assert_eq!(read_bibtex(text).unwrap()[0].field("title"), Some("axcc"));
    }

    #[test]
    fn macros_that_double_each_other_are_refused_before_they_fill_the_memory() {
        let mut text = "@string{m0 = \"x\"}\n".to_string();
        for n in 1..40 {
            text.push_str(&format!("@string{{m{n} = m{p} # m{p}}}\n", p = n - 1));
        }
        text.push_str("@misc{k, title = m39}\n");
        let error = error_of(&text);
        assert_eq!((error.key.as_deref(), error.line, error.rule), (Some("@string"), 22, MACRO_PARTS));
        assert!(error.message.ends_with("expand to more than 2097152 parts (a fixed cap)"), "{}", error.message);
    }

    #[test]
    fn budgets_refuse_hostile_shapes_naming_the_budget() {
        let budgets = Budgets { max_bytes: 1 << 20, max_expanded_bytes: 1000, max_brace_depth: 10 };
        let big = format!("@string{{m = \"{}\"}}\n@misc{{a, title = m}}\n@misc{{b, title = m # m}}\n", "x".repeat(600));
        let error = read_bibtex_within(&big, &budgets).expect_err("over the expansion budget");
        assert_eq!((error.key.as_deref(), error.line), (Some("b"), 3));
        assert!(error.message.contains("max_expanded_bytes (1000)"), "{}", error.message);
        assert_eq!(error.rule, "max_expanded_bytes");
        let deep = format!("@misc{{d, title = {}x{}}}", "{".repeat(11), "}".repeat(11));
        let too_deep = read_bibtex_within(&deep, &budgets).expect_err("too deep");
        assert!(too_deep.message.contains("max_brace_depth (10)") && too_deep.rule == "max_brace_depth");
        let huge = "%".repeat((1 << 20) + 1);
        let too_big = read_bibtex_within(&huge, &budgets).expect_err("too big");
        assert!(too_big.message.contains("max_bytes") && too_big.rule == "max_bytes");
        let unclosed = read_bibtex(&"@a{".repeat(80_000)).expect_err("never closed");
        assert_eq!((unclosed.ordinal, unclosed.line, unclosed.rule), (1, 1, "max_brace_depth"));
        assert_eq!(read_bibtex("@misc{k, title = {x}").expect_err("unclosed").rule, SYNTAX);
    }

    #[test]
    fn quoted_values_cut_by_a_braced_quote_are_read_up_to_the_budget() {
        let fields = |n: usize| (0..n).map(|k| format!("f{k} = \"a {{\"}}b\"")).collect::<Vec<_>>().join(", ");
        let entries = read_bibtex(&format!("@misc{{k, {}}}", fields(20))).unwrap();
        assert_eq!(entries[0].fields.len(), 20);
        assert_eq!(entries[0].field("f19"), Some("a \"b"));
        let error = read_bibtex(&format!("@misc{{ok, title = {{x}}}}\n@misc{{k, {}}}", fields(5000))).unwrap_err();
        assert_eq!((error.key.as_deref(), error.line), (Some("k"), 2));
        assert!(error.message.contains("more than 32 quoted values"), "{}", error.message);
    }
}
