//! Retry policy: how many times to try again and how long to wait in between.
//!
//! Invariant: the number of attempts is bounded (`1 + max_retries`) and every wait is
//! bounded by `max_delay`, whatever a server asks for in `Retry-After`.

use std::time::{Duration, SystemTime};

use rand::Rng;
use reqwest::header::HeaderMap;

/// Exponential backoff with jitter, honouring the server's `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// Upper bound on any delay, including one asked for by `Retry-After`.
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// Whether another attempt may follow attempt number `attempt` (counting from 1).
    pub fn allows_retry_after(&self, attempt: u32) -> bool {
        attempt <= self.max_retries
    }

    /// The wait after failed attempt number `attempt` (counting from 1). A server-given
    /// `retry_after` wins over the computed backoff; both are capped at `max_delay`.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(retry_after) = retry_after {
            return retry_after.min(self.max_delay);
        }
        let exponent = attempt.saturating_sub(1).min(20);
        let backoff = self.base_delay.saturating_mul(1_u32 << exponent).min(self.max_delay);
        // Jitter: a random point in the upper half, so that clients do not retry in lockstep.
        let factor: f64 = rand::rng().random_range(0.5..=1.0);
        backoff.mul_f64(factor)
    }
}

/// Reads how long the server wants us to wait: `retry-after-ms` (OpenAI), else
/// `Retry-After` in seconds (integer or decimal) or as an HTTP date (the time until then;
/// zero for a date already past).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    retry_after_at(headers, SystemTime::now())
}

fn retry_after_at(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header =
        |name: &str| headers.get(name).and_then(|value| value.to_str().ok()).map(str::trim);
    let seconds =
        |value: &str| value.parse::<f64>().ok().filter(|value| value.is_finite() && *value >= 0.0);
    if let Some(milliseconds) = header("retry-after-ms").and_then(seconds) {
        return Some(Duration::from_secs_f64(milliseconds / 1000.0));
    }
    let value = header("retry-after")?;
    if let Some(seconds) = seconds(value) {
        return Some(Duration::from_secs_f64(seconds.min(86_400.0)));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO).min(Duration::from_secs(86_400)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(300),
        };
        for _ in 0..50 {
            let first = policy.delay(1, None);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            let second = policy.delay(2, None);
            assert!(second >= Duration::from_millis(100) && second <= Duration::from_millis(200));
            assert!(policy.delay(30, None) <= Duration::from_millis(300));
        }
        assert_eq!(policy.delay(1, Some(Duration::from_secs(100))), Duration::from_millis(300));
        assert!(policy.allows_retry_after(3));
        assert!(!policy.allows_retry_after(4));
    }

    #[test]
    fn retry_after_headers() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after", HeaderValue::from_static("0.5"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(500)));
        headers.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers), None);
        // An HTTP date: the time until then, or nothing to wait for once it is past.
        headers.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        let date = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let before = date - Duration::from_secs(3);
        assert_eq!(retry_after_at(&headers, before), Some(Duration::from_secs(3)));
        assert_eq!(retry_after_at(&headers, date + Duration::from_secs(60)), Some(Duration::ZERO));
        assert_eq!(retry_after(&headers), Some(Duration::ZERO));
        headers.insert("retry-after-ms", HeaderValue::from_static("20"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(20)));
    }
}
