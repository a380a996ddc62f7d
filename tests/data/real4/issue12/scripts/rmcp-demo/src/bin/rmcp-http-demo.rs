//! rmcp 3.11.0 Streamable HTTP demo server (StreamableHttpService, default config:
//! stateful legacy session mode, SSE responses) on 127.0.0.1:PORT/mcp, same tools.
//! usage: rmcp-http-demo PORT
#[path = "../demo.rs"]
mod demo;
use std::sync::Arc;

use demo::Demo;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let port: u16 = std::env::args().nth(1).expect("PORT").parse()?;
    let service = StreamableHttpService::new(
        || Ok(Demo::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("rmcp-http-demo listening on 127.0.0.1:{port}");
    axum::serve(listener, app).await?;
    Ok(())
}
