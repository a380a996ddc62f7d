//! rmcp 3.11.0 stdio demo server for the issue-12 batch/notification captures.
//! Tools (src/demo.rs): add {a,b}, slow_echo {text, delay_ms}, count_with_progress {steps}
//! (one notifications/progress per step, 50 ms apart, when the call has a
//! progressToken). Logs (tracing) go to stderr.
mod demo;
use demo::Demo;
use rmcp::ServiceExt;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let service = Demo::new()
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}
