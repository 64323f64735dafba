//! Reading an answer's body within its bounds: a successful one into memory or a temporary
//! file, up to `max_response_bytes` / `max_download_bytes` of decompressed bytes and, when
//! gzip, `max_compression_ratio` times its compressed bytes; an error one to a short excerpt.

use std::io::{self, Write};
use std::path::Path;

use bytes::Bytes;
use reqwest::header::{HeaderMap, CONTENT_ENCODING};
use tempfile::NamedTempFile;

use crate::config::Bounds;

/// How much of an error body is read: enough for any JSON error of the contract, and what
/// an excerpt needs of an HTML page.
pub const ERROR_BODY_MAX: u64 = 64 << 10;

/// A gzip answer may always decompress to this much, whatever its ratio: a small answer of
/// one repeated value compresses far better than a page.
const RATIO_FREE_BYTES: u64 = 1 << 20;

/// The compressed bytes fed to the decoder at once: the ratio is checked between them.
const FEED: usize = 8 << 10;

/// Where a successful body goes.
pub enum BodySink<'a> {
    Memory,
    /// A temporary file in this directory, deleted unless the caller persists it; the
    /// callback, if any, hears the bytes written so far and the announced length.
    TempFileIn(&'a Path, Option<&'a DownloadProgress>),
}

/// Told `(bytes written so far, Content-Length if announced)` as a download progresses.
pub type DownloadProgress = dyn Fn(u64, Option<u64>) + Send + Sync;

/// A successful body, as the sink received it.
pub enum Body {
    Bytes(Bytes),
    File(NamedTempFile),
}

pub enum BodyError {
    Transport(reqwest::Error),
    Io(io::Error),
    /// Past a bound: `bound` names the client option, `limit` its value; `read`: the decoded
    /// bytes read (or announced) when reading stopped.
    TooLarge {
        bound: &'static str,
        limit: u64,
        read: u64,
    },
    /// A body announced as gzip that is not.
    Corrupt(String),
}

impl BodyError {
    /// What went wrong, for the caller's error message (the request id is added there).
    pub fn too_large_message(bound: &'static str, limit: u64, read: u64) -> String {
        let what = if bound == "max_compression_ratio" {
            format!(
                "the gzip answer decompressed to more than {limit} times its compressed size \
                 ({read} bytes so far; a compression bomb?)"
            )
        } else {
            format!("the answer is larger than {bound}={limit} bytes ({})", binary_size(limit))
        };
        format!(
            "{what}: reading stopped there and nothing of it was kept; raise the bound with \
             Client({bound}=...) or client.with_options({bound}=...)"
        )
    }
}

/// `bytes` as people read it: `256 MiB`, `1 GiB`, `512 B`.
fn binary_size(bytes: u64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match units.iter().find(|(size, _)| bytes >= *size) {
        Some((size, unit)) => {
            let value = bytes as f64 / *size as f64;
            if value.fract() == 0.0 {
                format!("{value:.0} {unit}")
            } else {
                format!("{value:.1} {unit}")
            }
        }
        None => format!("{bytes} B"),
    }
}

/// A hidden temporary file in `dir`, deleted unless persisted. Made here rather than by
/// `tempfile`, whose errors hide the operating system's (and its errno) behind the file's path.
pub fn temp_file_in(dir: &Path) -> io::Result<NamedTempFile> {
    let path = dir.join(format!(".paperlens-{}", uuid::Uuid::new_v4().simple()));
    let file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
    Ok(NamedTempFile::from_parts(file, tempfile::TempPath::try_from_path(path)?))
}

/// Reads a successful body into `sink` within `bounds`.
pub async fn read_body(response: reqwest::Response, sink: &BodySink<'_>, bounds: &Bounds) -> Result<Body, BodyError> {
    let gzip = is_gzip(response.headers());
    // The announced length of a gzip body is its compressed one.
    let announced = response.content_length().filter(|_| !gzip);
    let ratio = gzip.then_some(bounds.max_compression_ratio);
    match sink {
        BodySink::Memory => {
            let limit = Limit { bound: "max_response_bytes", bytes: bounds.max_response_bytes };
            limit.admits(announced)?;
            let buffer = Vec::with_capacity(announced.unwrap_or(0) as usize);
            let out = Bounded::new(buffer, limit, ratio);
            let out = stream(response, out, gzip, |_| {}).await?;
            Ok(Body::Bytes(Bytes::from(out.out)))
        }
        BodySink::TempFileIn(dir, progress) => {
            let limit = Limit { bound: "max_download_bytes", bytes: bounds.max_download_bytes };
            limit.admits(announced)?;
            let file = temp_file_in(dir).map_err(BodyError::Io)?;
            if let Some(progress) = progress {
                progress(0, announced);
            }
            let out = Bounded::new(file, limit, ratio);
            let out = stream(response, out, gzip, |written| {
                if let Some(progress) = progress {
                    progress(written, announced);
                }
            })
            .await?;
            out.out.as_file().sync_all().map_err(BodyError::Io)?;
            Ok(Body::File(out.out))
        }
    }
}

/// At most [`ERROR_BODY_MAX`] bytes of an error body (decompressed), whatever its length;
/// a body that breaks off or is not the gzip it says gives what arrived before.
pub async fn read_error_body(response: reqwest::Response) -> Bytes {
    let gzip = is_gzip(response.headers());
    let limit = Limit { bound: "error body", bytes: ERROR_BODY_MAX };
    let mut kept = Vec::new();
    let out = Bounded::new(&mut kept, limit, None);
    let _ = stream(response, out, gzip, |_| {}).await;
    Bytes::from(kept)
}

fn is_gzip(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "gzip" | "x-gzip"))
}

/// A bound in bytes and the option that sets it.
#[derive(Clone, Copy)]
struct Limit {
    bound: &'static str,
    bytes: u64,
}

impl Limit {
    /// A body announced longer than the bound is refused before it is read.
    fn admits(self, announced: Option<u64>) -> Result<(), BodyError> {
        match announced {
            Some(length) if length > self.bytes => {
                Err(BodyError::TooLarge { bound: self.bound, limit: self.bytes, read: length })
            }
            _ => Ok(()),
        }
    }
}

/// The reason a [`Bounded`] writer refused more bytes.
#[derive(Debug)]
struct Refused {
    bound: &'static str,
    limit: u64,
    read: u64,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} of {} reached", self.bound, self.limit)
    }
}

impl std::error::Error for Refused {}

/// Decoded bytes on their way to `out`: up to the limit (the last write cut to fit), and,
/// for a gzip body, up to `ratio` times the compressed bytes fed so far.
struct Bounded<W> {
    out: W,
    written: u64,
    limit: Limit,
    ratio: Option<u64>,
    compressed: u64,
}

impl<W: Write> Bounded<W> {
    fn new(out: W, limit: Limit, ratio: Option<u64>) -> Bounded<W> {
        Bounded { out, written: 0, limit, ratio, compressed: 0 }
    }

    /// How many more bytes may be written, and the bound that says so.
    fn room(&self) -> (u64, Refused) {
        let by_size = self.limit.bytes.saturating_sub(self.written);
        let refused = |bound, limit| Refused { bound, limit, read: self.written };
        match self.ratio {
            Some(ratio) => {
                let allowed = self.compressed.saturating_mul(ratio).max(RATIO_FREE_BYTES);
                let by_ratio = allowed.saturating_sub(self.written);
                if by_ratio < by_size {
                    (by_ratio, refused("max_compression_ratio", ratio))
                } else {
                    (by_size, refused(self.limit.bound, self.limit.bytes))
                }
            }
            None => (by_size, refused(self.limit.bound, self.limit.bytes)),
        }
    }
}

impl<W: Write> Write for Bounded<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let (room, refused) = self.room();
        if room == 0 {
            return Err(io::Error::other(refused));
        }
        let take = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        self.out.write_all(&buf[..take])?;
        self.written += take as u64;
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Reads the body chunk by chunk into `out` (through a gzip decoder when `gzip`), telling
/// `written` the decoded bytes after each chunk.
async fn stream<W: Write>(
    mut response: reqwest::Response,
    out: Bounded<W>,
    gzip: bool,
    written: impl Fn(u64),
) -> Result<Bounded<W>, BodyError> {
    if !gzip {
        let mut out = out;
        while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
            out.write_all(&chunk).map_err(write_error)?;
            written(out.written);
        }
        return Ok(out);
    }
    let mut decoder = flate2::write::MultiGzDecoder::new(out);
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Transport)? {
        for piece in chunk.chunks(FEED) {
            decoder.get_mut().compressed += piece.len() as u64;
            decoder.write_all(piece).map_err(gzip_error)?;
        }
        written(decoder.get_mut().written);
    }
    decoder.try_finish().map_err(gzip_error)?;
    decoder.finish().map_err(gzip_error)
}

fn write_error(error: io::Error) -> BodyError {
    match error.get_ref().and_then(|inner| inner.downcast_ref::<Refused>()) {
        Some(refused) => BodyError::TooLarge { bound: refused.bound, limit: refused.limit, read: refused.read },
        None => BodyError::Io(error),
    }
}

/// A decoder's error: a bound reached, a write that failed, or a body that is not gzip.
fn gzip_error(error: io::Error) -> BodyError {
    match write_error(error) {
        BodyError::Io(error) if is_corrupt(&error) => {
            BodyError::Corrupt(format!("the body announced as gzip is not ({error})"))
        }
        other => other,
    }
}

fn is_corrupt(error: &io::Error) -> bool {
    matches!(error.kind(), io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(bytes: u64) -> Limit {
        Limit { bound: "max_response_bytes", bytes }
    }

    #[test]
    fn a_bounded_writer_keeps_up_to_its_limit_and_names_it() {
        let mut out = Bounded::new(Vec::new(), limit(10), None);
        out.write_all(b"0123456").unwrap();
        let error = write_error(out.write_all(b"789abc").unwrap_err());
        assert_eq!(out.out, b"0123456789");
        let BodyError::TooLarge { bound, limit, read } = error else { panic!("not a bound") };
        assert_eq!((bound, limit, read), ("max_response_bytes", 10, 10));
    }

    #[test]
    fn a_gzip_bomb_stops_at_its_ratio() {
        use flate2::write::GzEncoder;
        let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&vec![b'a'; 16 << 20]).unwrap();
        let bomb = encoder.finish().unwrap();
        let mut decoder = flate2::write::MultiGzDecoder::new(Bounded::new(Vec::new(), limit(1 << 30), Some(100)));
        let mut stopped = None;
        for piece in bomb.chunks(FEED) {
            decoder.get_mut().compressed += piece.len() as u64;
            if let Err(error) = decoder.write_all(piece) {
                stopped = Some(gzip_error(error));
                break;
            }
        }
        let Some(BodyError::TooLarge { bound, limit, read }) = stopped else { panic!("the bomb was not stopped") };
        assert_eq!((bound, limit), ("max_compression_ratio", 100));
        assert!(read <= (bomb.len() as u64 * 100).max(RATIO_FREE_BYTES), "{read}");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(binary_size(256 << 20), "256 MiB");
        assert_eq!(binary_size(1 << 30), "1 GiB");
        assert_eq!(binary_size(1536), "1.5 KiB");
        assert_eq!(binary_size(12), "12 B");
    }
}
