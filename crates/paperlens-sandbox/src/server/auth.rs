//! Bearer-token authentication: which [`Access`] a request's token grants.

use axum::http::{header, HeaderMap};

use crate::service::Access;

pub(crate) struct Tokens {
    pub full: String,
    pub restricted: String,
}

impl Tokens {
    /// Uses the given full token, or generates one; the restricted token is always generated.
    pub fn new(full: Option<String>) -> Result<Tokens, String> {
        let full = match full {
            Some(token) if is_token_syntax(&token) => token,
            Some(_) => {
                return Err(
                    "token must be 1-512 visible ASCII characters without spaces".to_string(),
                )
            }
            None => generate("sbx"),
        };
        Ok(Tokens {
            full,
            restricted: generate("sbx-restricted"),
        })
    }

    pub fn authenticate(&self, headers: &HeaderMap) -> Result<Access, &'static str> {
        let value = headers
            .get(header::AUTHORIZATION)
            .ok_or("missing Authorization header")?;
        let token = value
            .to_str()
            .ok()
            .and_then(bearer_token)
            .ok_or("malformed Authorization header: expected `Bearer <API_TOKEN>`")?;
        if token == self.full {
            Ok(Access::Full)
        } else if token == self.restricted {
            Ok(Access::Restricted)
        } else {
            Err("invalid or disabled API token")
        }
    }
}

fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn is_token_syntax(token: &str) -> bool {
    (1..=512).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_graphic())
}

fn generate(prefix: &str) -> String {
    format!("{prefix}-{:032x}", rand::random::<u128>())
}
