pub mod prompts;
