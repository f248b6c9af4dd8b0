pub mod error;
pub mod provider;
pub mod summarizer;
