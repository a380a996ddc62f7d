//! The demo server shared by the stdio and HTTP binaries (rmcp 3.11.0).
//! Tools: add {a,b}, slow_echo {text, delay_ms}, count_with_progress {steps}
//! (one notifications/progress per step, 50 ms apart, when the call has a
//! progressToken). Logs (tracing) go to stderr.
#![allow(dead_code)]
use rmcp::{
    Peer, RoleServer, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{ProgressNotificationParam, RequestMetaObject, ServerCapabilities, ServerConfig},
    tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// first addend
    a: i64,
    /// second addend
    b: i64,
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// text to echo
    text: String,
    /// delay before answering, ms
    delay_ms: u64,
}

#[derive(Deserialize, JsonSchema)]
struct StepsArgs {
    /// number of progress steps
    steps: u32,
}

#[derive(Clone)]
pub struct Demo {
    pub tool_router: ToolRouter<Self>,
}

impl Demo {
    /// The demo with its tool router.
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }
}

#[tool_router]
impl Demo {
    #[tool(description = "Add two integers.")]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    #[tool(description = "Echo text after delay_ms.")]
    async fn slow_echo(&self, Parameters(EchoArgs { text, delay_ms }): Parameters<EchoArgs>) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
        text
    }

    #[tool(description = "Send one progress notification per step, 50 ms apart.")]
    async fn count_with_progress(
        &self,
        Parameters(StepsArgs { steps }): Parameters<StepsArgs>,
        meta: RequestMetaObject,
        client: Peer<RoleServer>,
    ) -> String {
        if let Some(tok) = meta.get_progress_token() {
            for s in 1..=steps {
                let _ = client
                    .notify_progress(ProgressNotificationParam::new(tok.clone(), s as f64).with_total(steps as f64))
                    .await;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
        format!("counted {steps}")
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new("capture-demo-rmcp", "0.1.0"))
    }
}

