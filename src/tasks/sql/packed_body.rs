//! Task bodies in a SQLite file are LZ4 blocks, not text.
//!
//! Why: a task's JSON is 2.3 to 2.7 kB, so as text each row filled a 4 kB
//! page of its own (two never fit in one), and the pages are what the WAL,
//! the checkpoints and their syncs write. Packed (about 1.2 kB) three rows
//! share a page: the file is less than half the size for as many rows, a
//! stored `message/send` has a shorter p99 on a disk where syncs are slow,
//! and it takes no more CPU, packing included (measured in
//! bench/README.md). Packing runs on the caller's thread, not on the
//! writer's, which every write passes through.
//!
//! What a body column holds: a BLOB is a packed body (the JSON's length as
//! 4 bytes little-endian, then its LZ4 block); TEXT is the JSON itself, as
//! written before bodies were packed, by SQLite in memory and by
//! PostgreSQL. Readers take either, so no migration rewrites old rows.

use crate::tasks::store::StoreError;
use sqlx::any::{AnyRow, AnyTypeInfoKind};
use sqlx::{Row, ValueRef as _};

/// A packed body never unpacks to more than this: a corrupt length prefix
/// must not make the reader allocate gigabytes. The same bound as on write
/// (`encode_task` refuses a larger task), so what is written reads back.
const MAX_UNPACKED_BYTES: usize = crate::tasks::store::MAX_TASK_JSON_BYTES;

/// `json` packed for a SQLite file's body column.
pub(super) fn pack(json: &str) -> Vec<u8> {
    lz4_flex::block::compress_prepend_size(json.as_bytes())
}

/// Why a packed body does not unpack.
#[derive(Debug, thiserror::Error)]
pub(super) enum UnpackError {
    #[error("a packed body shorter than its length prefix")]
    NoPrefix,
    #[error("a packed body claims {0} bytes, more than a task can have")]
    TooLong(usize),
    #[error("a packed body does not unpack: {0}")]
    Lz4(#[from] lz4_flex::block::DecompressError),
    #[error("a packed body unpacks to {unpacked} bytes, not the {claimed} it claims")]
    WrongLength { claimed: usize, unpacked: usize },
    #[error("a packed body is not UTF-8")]
    NotUtf8(#[from] std::string::FromUtf8Error),
}

/// The JSON of a packed body.
pub(super) fn unpack(packed: &[u8]) -> Result<String, UnpackError> {
    let (prefix, block) = packed
        .split_first_chunk::<4>()
        .ok_or(UnpackError::NoPrefix)?;
    let length = u32::from_le_bytes(*prefix) as usize;
    if length > MAX_UNPACKED_BYTES {
        return Err(UnpackError::TooLong(length));
    }
    let mut json = vec![0; length];
    let unpacked = lz4_flex::block::decompress_into(block, &mut json)?;
    if unpacked != length {
        return Err(UnpackError::WrongLength {
            claimed: length,
            unpacked,
        });
    }
    Ok(String::from_utf8(json)?)
}

/// The task JSON in column `index` of `row`, packed or not; `what` names
/// the row in an error.
pub(super) fn body_json(row: &AnyRow, index: usize, what: &str) -> Result<String, StoreError> {
    let raw = row.try_get_raw(index).map_err(StoreError::unavailable)?;
    let packed = !raw.is_null() && raw.type_info().kind() == AnyTypeInfoKind::Blob;
    if !packed {
        return row.try_get(index).map_err(StoreError::unavailable);
    }
    let bytes: Vec<u8> = row.try_get(index).map_err(StoreError::unavailable)?;
    unpack(&bytes).map_err(|error| {
        StoreError::corrupt(what, <serde_json::Error as serde::de::Error>::custom(error))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_unpacks_to_what_was_packed() {
        let json = format!(
            r#"{{"id":"t","text":"{}","ü":"€"}}"#,
            "credit block ".repeat(200)
        );
        let packed = pack(&json);
        assert!(
            packed.len() < json.len() / 3,
            "{} of {}",
            packed.len(),
            json.len()
        );
        assert_eq!(unpack(&packed).unwrap(), json);
        assert_eq!(unpack(&pack("")).unwrap(), "");
    }

    #[test]
    fn a_damaged_body_is_an_error_not_a_panic_or_a_huge_allocation() {
        let packed = pack(&"{\"a\":1}".repeat(100));
        assert!(matches!(unpack(&packed[..3]), Err(UnpackError::NoPrefix)));
        let mut huge = packed.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(unpack(&huge), Err(UnpackError::TooLong(_))));
        let mut cut = packed.clone();
        cut.truncate(packed.len() - 5);
        assert!(matches!(unpack(&cut), Err(UnpackError::Lz4(_))));
        let mut longer = packed.clone();
        longer[..4].copy_from_slice(&1_000_000u32.to_le_bytes());
        assert!(matches!(
            unpack(&longer),
            Err(UnpackError::WrongLength { .. })
        ));
        let mut shorter = packed;
        shorter[..4].copy_from_slice(&10u32.to_le_bytes());
        assert!(matches!(unpack(&shorter), Err(UnpackError::Lz4(_))));
        let not_utf8 = lz4_flex::block::compress_prepend_size(&[0xff, 0xfe, 0x7b]);
        assert!(matches!(unpack(&not_utf8), Err(UnpackError::NotUtf8(_))));
    }
}
