//! Structural checks of the deployment files against the code: every file
//! parses, names what the code reads, and the files agree with each other.

use super::support::{
    DEPLOY_GUIDE, file_stem, files_in, json_file, placeholders, read, repo, setting_exists, text,
    yaml_file,
};
use crate::helpers::{AuthSettings, BusinessRole, Settings};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const CAPABILITY: &str = "joule/order_exception";

fn application() -> Value {
    let manifest = yaml_file("manifest.yml");
    let applications = manifest["applications"]
        .as_array()
        .expect("manifest.yml lists applications");
    assert_eq!(applications.len(), 1, "one application");
    applications[0].clone()
}

/// `512M`, `1G` … in megabytes.
fn megabytes(size: &str) -> u64 {
    let (number, unit) = size.split_at(size.len() - 1);
    let number: u64 = number
        .parse()
        .expect("a memory size is a number and a unit");
    match unit {
        "M" => number,
        "G" => number * 1024,
        other => panic!("unexpected memory unit {other}"),
    }
}

fn services(app: &Value) -> Vec<String> {
    app["services"]
        .as_array()
        .expect("the application binds services")
        .iter()
        .map(|service| {
            service
                .as_str()
                .or_else(|| service["name"].as_str())
                .expect("a service is a name")
                .to_string()
        })
        .collect()
}

#[test]
fn manifest_runs_the_staged_binary_on_cflinuxfs4_with_an_http_health_check() {
    let app = application();
    let what = "manifest.yml";
    assert_eq!(app["buildpacks"], serde_json::json!(["binary_buildpack"]));
    assert_eq!(text(&app, "stack", what), "cflinuxfs4");
    assert_eq!(text(&app, "command", what), "./order-exception-agent");
    assert_eq!(text(&app, "health-check-type", what), "http");
    assert_eq!(text(&app, "health-check-http-endpoint", what), "/health");
    let memory = megabytes(text(&app, "memory", what));
    assert!(
        (64..=128).contains(&memory),
        "memory {memory}M is within 64M–128M"
    );
    assert!(app["instances"].as_u64().is_some_and(|n| n >= 1));
    // binary_buildpack pushes the folder deploy/stage.sh fills.
    let path = text(&app, "path", what);
    let stage = read("deploy/stage.sh");
    assert!(
        stage.contains(&format!("DIST={path}")),
        "deploy/stage.sh stages into the manifest's path `{path}`"
    );
    assert!(
        stage.contains("NAME=order-exception-agent")
            && app["command"] == format!("./{}", env!("CARGO_PKG_NAME")),
        "the staged file is the command the manifest runs"
    );
    // The route and the card's URL come from the same variable.
    let route = app["routes"][0]["route"].as_str().expect("a route");
    assert!(
        route.starts_with("((") && route.ends_with("))"),
        "route is a cf variable"
    );
    assert_eq!(app["env"]["PUBLIC_URL"], format!("https://{route}/"));
}

#[test]
fn manifest_binds_the_instances_the_deploy_guide_creates() {
    let app = application();
    let bound = services(&app);
    let deploy = read(DEPLOY_GUIDE);
    let identity = &bound[0];
    let destination = &bound[1];
    let database = &bound[2];
    assert_eq!(
        bound.len(),
        3,
        "identity, destination and the durable store; the rest are optional"
    );
    assert!(
        deploy.contains(&format!(
            "cf create-service postgresql-db <PG_PLAN> {database}"
        )),
        "{DEPLOY_GUIDE} creates the PostgreSQL instance `{database}`"
    );
    assert!(
        deploy.contains(&format!(
            "cf create-service identity application {identity} -c deploy/identity.json"
        )),
        "{DEPLOY_GUIDE} creates the identity instance `{identity}` with deploy/identity.json"
    );
    assert!(
        deploy.contains(&format!("cf create-service destination lite {destination}")),
        "{DEPLOY_GUIDE} creates the destination instance `{destination}`"
    );
    // The optional instances are in the manifest as comments and in the guide.
    let manifest = read("manifest.yml");
    for optional in [
        "order-exception-agent-logs",
        "order-exception-agent-xsuaa",
        "order-exception-agent-auditlog",
    ] {
        assert!(
            manifest.contains(&format!("# - {optional}")),
            "{optional} in manifest.yml"
        );
        assert!(
            deploy.contains(optional),
            "{DEPLOY_GUIDE} explains {optional}"
        );
    }
    assert!(deploy.contains(
        "cf create-service xsuaa application order-exception-agent-xsuaa -c xs-security.json"
    ));
    // The audit log's premium plan with the X.509 binding of audit-log.md §1.1.
    assert!(deploy.contains("cf create-service auditlog premium order-exception-agent-auditlog"));
    assert!(deploy.contains(r#"{"xsuaa":{"credential-type":"x509","x509":{"key-length":2048,"validity":30,"validity-type":"DAYS"}}}"#));
}

#[test]
fn manifest_environment_names_existing_settings() {
    let app = application();
    let env = app["env"].as_object().expect("manifest env");
    let agent_variables: Vec<&String> = env
        .keys()
        .filter(|name| name.starts_with("AGENT__"))
        .collect();
    assert!(
        !agent_variables.is_empty(),
        "the manifest sets agent settings"
    );
    for name in agent_variables {
        assert!(setting_exists(name), "{name} is a setting in src/config.rs");
        assert!(env[name].is_string(), "{name} is a string (cf env values)");
    }
}

#[test]
fn the_identity_instance_provides_the_api_group_the_agent_requires() {
    let identity = json_file("deploy/identity.json");
    let required = AuthSettings::default().required_api;
    let apis = identity["provided-apis"].as_array().expect("provided-apis");
    let names: Vec<&str> = apis.iter().filter_map(|api| api["name"].as_str()).collect();
    assert_eq!(
        names,
        [required.as_str()],
        "the API group Joule's token must carry"
    );
    assert!(
        required.len() <= 32,
        "IAS API names are at most 32 characters"
    );
    assert!(apis.iter().all(|api| api["description"].is_string()));
    assert_eq!(identity["xsuaa-cross-consumption"], true);
    let validity = identity["oauth2-configuration"]["token-policy"]["token-validity"]
        .as_u64()
        .expect("token-validity");
    assert!((60..=3600).contains(&validity));
    // The claims the agent and the S/4HANA destinations read, set
    // explicitly: in App2App the provider application decides them.
    let attributes = identity["assertion-attributes"]
        .as_object()
        .expect("deploy/identity.json sets assertion-attributes");
    for (claim, attribute) in [
        ("email", "mail"),
        ("mail", "mail"),
        ("groups", "companyGroups"),
        ("user_uuid", "userUuid"),
    ] {
        assert_eq!(
            attributes.get(claim).and_then(Value::as_str),
            Some(attribute),
            "the token's `{claim}` carries the user attribute {attribute}"
        );
    }
    let guide = read(DEPLOY_GUIDE);
    assert!(
        guide.contains("assertion-attributes")
            && guide.to_lowercase().contains("decode one real token"),
        "{DEPLOY_GUIDE} explains the claims and says to decode a real token"
    );
}

#[test]
fn xs_security_has_one_scope_and_one_role_template_per_role() {
    let xs = json_file("xs-security.json");
    assert!(!text(&xs, "xsappname", "xs-security.json").is_empty());
    let wanted: BTreeSet<String> = BusinessRole::ALL
        .iter()
        .map(|role| format!("$XSAPPNAME.{}", role.as_str()))
        .collect();
    let scopes: BTreeSet<String> = xs["scopes"]
        .as_array()
        .expect("scopes")
        .iter()
        .map(|scope| text(scope, "name", "scope").to_string())
        .collect();
    assert_eq!(
        scopes, wanted,
        "the agent reads roles from `<xsappname>.<role>` scopes"
    );
    let templates = xs["role-templates"].as_array().expect("role-templates");
    assert_eq!(templates.len(), BusinessRole::ALL.len());
    for role in BusinessRole::ALL {
        let template = templates
            .iter()
            .find(|t| t["name"] == role.as_str())
            .unwrap_or_else(|| panic!("a role template named {role}"));
        assert_eq!(
            template["scope-references"],
            serde_json::json!([format!("$XSAPPNAME.{role}")])
        );
    }
    let collections = xs["role-collections"].as_array().expect("role-collections");
    let referenced: BTreeSet<String> = collections
        .iter()
        .flat_map(|c| {
            c["role-template-references"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|r| r.as_str().map(str::to_string))
        .collect();
    assert_eq!(referenced, wanted, "one role collection per role template");
}

/// What each authentication type needs (Destination service property names).
fn required_properties(authentication: &str) -> &'static [&'static str] {
    match authentication {
        "OAuth2JWTBearer" => &[
            "tokenServiceURL",
            "tokenServiceURLType",
            "clientId",
            "clientSecret",
            "tokenService.body.resource",
            "tokenService.body.token_format",
            "tokenService.addClientCredentialsInBody",
            "x_user_token.jwks_uri",
        ],
        "OAuth2ClientCredentials" => &[
            "tokenServiceURL",
            "tokenServiceURLType",
            "clientId",
            "clientSecret",
        ],
        "OAuth2SAMLBearerAssertion" => &[
            "audience",
            "clientKey",
            "tokenServiceURL",
            "tokenServiceUser",
            "tokenServicePassword",
            "authnContextClassRef",
            "nameIdFormat",
        ],
        // The S/4HANA destination's other variants (docs/s4hana.md).
        "PrincipalPropagation" => &["ProxyType"],
        "BasicAuthentication" => &["User", "Password"],
        "NoAuthentication" => &[],
        other => panic!("no rule for Authentication `{other}`"),
    }
}

fn destinations() -> BTreeMap<String, Value> {
    files_in("destinations", ".json")
        .into_iter()
        .map(|file| {
            let value = json_file(&file);
            (file, value)
        })
        .collect()
}

#[test]
fn destinations_have_the_properties_their_authentication_needs() {
    let all = destinations();
    assert!(
        all.len() >= 4,
        "agent (two variants), JOULE_ASYNC_API, S/4HANA"
    );
    for (file, destination) in &all {
        let properties = destination.as_object().expect("a destination is an object");
        for (key, value) in properties {
            assert!(
                value.is_string(),
                "{file}: {key} is a string, as the service stores it"
            );
        }
        let name = text(destination, "Name", file);
        assert_eq!(
            file_stem(file),
            name,
            "{file}: the file is named after the destination"
        );
        assert_eq!(text(destination, "Type", file), "HTTP");
        // On premise the URL is the Cloud Connector's virtual host, reached
        // through the connectivity proxy.
        if text(destination, "ProxyType", file) == "OnPremise" {
            assert_eq!(
                text(destination, "Authentication", file),
                "PrincipalPropagation"
            );
            assert!(
                text(destination, "URL", file).starts_with("http://"),
                "{file}"
            );
        } else {
            assert_eq!(text(destination, "ProxyType", file), "Internet");
            assert!(
                text(destination, "URL", file).starts_with("https://"),
                "{file}: https"
            );
        }
        let authentication = text(destination, "Authentication", file);
        for property in required_properties(authentication) {
            assert!(
                properties
                    .get(*property)
                    .and_then(Value::as_str)
                    .is_some_and(|v| !v.is_empty()),
                "{file}: {authentication} needs {property}"
            );
        }
        if let Some(resource) = properties.get("tokenService.body.resource") {
            assert!(
                resource
                    .as_str()
                    .is_some_and(|r| r.starts_with("urn:sap:identity:application:provider:name:")),
                "{file}: the resource names an IAS dependency"
            );
        }
        if authentication == "OAuth2JWTBearer" {
            assert_eq!(
                text(destination, "tokenService.body.token_format", file),
                "jwt"
            );
            assert_eq!(text(destination, "tokenServiceURLType", file), "Dedicated");
        }
    }
}

#[test]
fn the_agent_destination_is_app2app_user_propagation_to_the_json_rpc_root() {
    let default = json_file("destinations/ORDER_EXCEPTION_AGENT_A2A.json");
    let file = "the default agent destination";
    assert_eq!(text(&default, "Authentication", file), "OAuth2JWTBearer");
    // Everything Joule's App2App exchange needs (joule.md §8, variant D).
    assert_eq!(text(&default, "apptoapp", file), "true");
    assert_eq!(
        text(&default, "tokenService.body.client_id", file),
        text(&default, "clientId", file)
    );
    assert_eq!(
        text(&default, "tokenService.addClientCredentialsInBody", file),
        "false"
    );
    // The URL is the JSON-RPC endpoint (the card's `url`), not the card.
    let app = application();
    let route = app["routes"][0]["route"].as_str().expect("a route");
    let url = text(&default, "URL", file);
    assert_eq!(url, "https://<AGENT_ROUTE>/");
    assert_eq!(
        app["env"]["PUBLIC_URL"]
            .as_str()
            .map(|u| u.replace(route, "<AGENT_ROUTE>")),
        Some(url.to_string()),
        "the card's url (PUBLIC_URL) is the destination URL"
    );
    let variant = json_file("destinations/ORDER_EXCEPTION_AGENT_A2A.client-credentials.json");
    assert_eq!(
        text(&variant, "Authentication", file),
        "OAuth2ClientCredentials"
    );
    assert_eq!(variant["URL"], default["URL"]);
}

#[test]
fn joule_async_api_is_the_destination_the_agent_looks_up() {
    let name = Settings::default().push.destination.name;
    let destination = json_file(&format!("destinations/{name}.json"));
    let file = "JOULE_ASYNC_API";
    assert_eq!(text(&destination, "Name", file), name);
    assert_eq!(
        text(&destination, "Authentication", file),
        "OAuth2JWTBearer"
    );
    assert_eq!(
        text(
            &destination,
            "tokenService.addClientCredentialsInBody",
            file
        ),
        "true"
    );
    // Its URL is a Joule callback host the push guard allows.
    let url = text(&destination, "URL", file);
    let host = url
        .trim_start_matches("https://")
        .split('/')
        .next()
        .unwrap_or_default();
    let allowed = Settings::default().push.allowed_hosts;
    assert!(
        allowed.iter().any(|pattern| {
            pattern
                .strip_prefix("*.")
                .is_some_and(|suffix| host.ends_with(&format!(".{suffix}")))
        }),
        "{host} matches push.allowed_hosts {allowed:?}"
    );
}

#[test]
fn destinations_commit_no_secrets_and_list_their_placeholders_in_the_deploy_guide() {
    let deploy = read(DEPLOY_GUIDE);
    let mut seen = BTreeSet::new();
    for (file, destination) in destinations() {
        for (key, value) in destination.as_object().expect("object") {
            let value = value.as_str().unwrap_or_default();
            let lower = key.to_lowercase();
            if lower.contains("secret") || lower.contains("password") {
                assert!(
                    value.starts_with('<') && value.ends_with('>'),
                    "{file}: {key} is a placeholder, not a secret"
                );
            }
            assert!(!value.contains("eyJ"), "{file}: {key} holds no token");
            assert!(!value.contains("-----BEGIN"), "{file}: {key} holds no key");
            for placeholder in placeholders(value) {
                let inner = &placeholder[1..placeholder.len() - 1];
                assert!(
                    !inner.is_empty()
                        && inner
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'),
                    "{file}: {key}: placeholders look like <UPPER_CASE>, got {placeholder}"
                );
                seen.insert(placeholder);
            }
        }
    }
    assert!(seen.contains("<AGENT_ROUTE>"));
    for placeholder in &seen {
        assert!(
            deploy.contains(&format!("`{placeholder}`")),
            "{DEPLOY_GUIDE} explains {placeholder}"
        );
    }
}

#[test]
fn the_joule_capability_uses_the_customer_namespace_and_known_schema_versions() {
    let da = yaml_file("joule/da.sapdas.yaml");
    assert_eq!(text(&da, "schema_version", "da.sapdas.yaml"), "1.4.0");
    let name = text(&da, "name", "da.sapdas.yaml");
    assert!(
        (3..=50).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
            && name
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_alphanumeric()),
        "assistant name `{name}`"
    );
    let capabilities = da["capabilities"].as_array().expect("capabilities");
    assert_eq!(capabilities.len(), 1);
    assert_eq!(capabilities[0]["type"], "local");
    // SAP's CLI schema (da.sapdas.schema.json, the `local` branch) forbids
    // name, namespace and version here; .ci/joule-check runs that schema.
    for forbidden in ["name", "namespace", "version"] {
        assert!(
            capabilities[0].get(forbidden).is_none(),
            "a local capability has no {forbidden}"
        );
    }
    let folder = text(&capabilities[0], "folder", "da.sapdas.yaml").trim_start_matches("./");
    assert_eq!(format!("joule/{folder}"), CAPABILITY);

    let capability = yaml_file(&format!("{CAPABILITY}/capability.sapdas.yaml"));
    let what = "capability.sapdas.yaml";
    assert_eq!(text(&capability, "schema_version", what), "3.28.0");
    let metadata = &capability["metadata"];
    assert_eq!(text(metadata, "namespace", what), "joule.ext");
    let version = text(metadata, "version", what);
    assert_eq!(
        version
            .split('.')
            .filter(|p| p.parse::<u32>().is_ok())
            .count(),
        3
    );
    let display = text(metadata, "display_name", what);
    assert!(
        display
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        "display_name `{display}`: letters, digits, _ and - only"
    );
    assert!(text(metadata, "description", what).len() <= 512);
}

/// Every function file of the capability and the async variant, by file.
fn functions() -> Vec<(String, Value)> {
    let mut all: Vec<String> = files_in(&format!("{CAPABILITY}/functions"), ".yaml");
    all.extend(files_in("joule/variants/async/functions", ".yaml"));
    all.into_iter()
        .map(|f| (f.clone(), yaml_file(&f)))
        .collect()
}

fn agent_requests(function: &Value) -> Vec<Value> {
    function["action_groups"]
        .as_array()
        .expect("action_groups")
        .iter()
        .flat_map(|group| group["actions"].as_array().cloned().unwrap_or_default())
        .filter(|action| action["type"] == "agent-request")
        .collect()
}

#[test]
fn every_system_alias_is_defined_and_names_a_shipped_destination() {
    let capability = yaml_file(&format!("{CAPABILITY}/capability.sapdas.yaml"));
    let aliases = capability["system_aliases"]
        .as_object()
        .expect("system_aliases");
    let shipped: BTreeSet<String> = destinations()
        .values()
        .map(|d| d["Name"].as_str().unwrap_or_default().to_string())
        .collect();
    for (alias, target) in aliases {
        let destination = text(target, "destination", alias);
        assert!(
            shipped.contains(destination),
            "system alias {alias} names destination {destination}, which destinations/ lacks ({shipped:?})"
        );
    }
    for (file, function) in functions() {
        let requests = agent_requests(&function);
        assert_eq!(requests.len(), 1, "{file}: one agent-request");
        let request = &requests[0];
        assert_eq!(request["agent_type"], "remote", "{file}");
        let alias = text(request, "system_alias", &file);
        assert!(
            aliases.contains_key(alias),
            "{file}: system_alias {alias} is defined"
        );
        assert!(
            request["result_variable"].is_string(),
            "{file}: result_variable"
        );
        let body = request["body"].as_object().expect("a body with the ids");
        assert!(
            body.contains_key("contextId") && body.contains_key("taskId"),
            "{file}"
        );
    }
    let (_, async_function) = functions()
        .into_iter()
        .find(|(file, _)| file.starts_with("joule/variants/async/"))
        .expect("the async variant");
    assert_eq!(
        agent_requests(&async_function)[0]["body"]["configurations"]["pushNotifications"],
        true
    );
}

/// A `quickReplies` message is written out the way SAP's guides show it,
/// `content: {title, buttons: [{title, value}]}` with an expression only in
/// a leaf (SAP's CLI checks none of this; its compiler runs on SAP's
/// servers). Only the synchronous function shows buttons: in async mode the
/// states that ask arrive by push and never pass through the function.
#[test]
fn quick_replies_are_written_out_with_expressions_only_in_the_leaves() {
    let mut showing = Vec::new();
    for (file, function) in functions() {
        let groups = function["action_groups"].as_array().expect("action_groups");
        let messages = groups
            .iter()
            .flat_map(|group| group["actions"].as_array().cloned().unwrap_or_default())
            .filter(|action| action["type"] == "message")
            .map(|action| action["message"].clone());
        for message in messages.filter(|message| message["type"] == "quickReplies") {
            let content = &message["content"];
            assert!(
                content.is_object(),
                "{file}: content written out: {content}"
            );
            assert!(content["title"].is_string(), "{file}: a title: {content}");
            let buttons = content["buttons"].as_array().expect("buttons listed");
            assert!(!buttons.is_empty(), "{file}");
            for button in buttons {
                let fields = button.as_object().expect("a button is written out");
                assert_eq!(
                    fields.keys().map(String::as_str).collect::<Vec<_>>(),
                    ["title", "value"],
                    "{file}: {button}"
                );
                assert!(fields.values().all(Value::is_string), "{file}: {button}");
            }
            showing.push(file.clone());
        }
    }
    assert_eq!(
        showing,
        [format!(
            "{CAPABILITY}/functions/call_order_exception_agent.yaml"
        )]
    );
}

#[test]
fn scenarios_reference_existing_functions_parameters_results_and_context() {
    let context = yaml_file(&format!("{CAPABILITY}/capability_context.yaml"));
    let declared: BTreeSet<&str> = context["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| text(v, "name", "capability_context.yaml"))
        .collect();
    let scenarios = files_in(&format!("{CAPABILITY}/scenarios"), ".yaml");
    assert_eq!(
        scenarios.len(),
        5,
        "credit, pricing, master data, delivery, several orders"
    );
    let mut used_context = BTreeSet::new();
    for file in &scenarios {
        let scenario = yaml_file(file);
        assert!(
            text(&scenario, "description", file).len() > 80,
            "{file}: routing text"
        );
        // `title` is optional (no SAP sample sets one; the one generator
        // that writes it caps it at 32 characters): none, or within 32.
        if let Some(title) = scenario.get("title") {
            let title = title.as_str().unwrap_or_default();
            assert!(
                (1..=32).contains(&title.chars().count()),
                "{file}: title `{title}` has 1 to 32 characters"
            );
        }
        let target = &scenario["target"];
        assert_eq!(target["type"], "function");
        let name = text(target, "name", file);
        let function_file = format!("{CAPABILITY}/functions/{name}.yaml");
        assert!(
            repo().join(&function_file).is_file(),
            "{file}: function {name} exists"
        );
        let function = yaml_file(&function_file);
        let parameters: BTreeSet<&str> = function["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .map(|p| text(p, "name", &function_file))
            .collect();
        for parameter in target["parameters"].as_array().expect("parameters") {
            let parameter_name = text(parameter, "name", file);
            assert!(
                parameters.contains(parameter_name),
                "{file}: {name} takes {parameter_name}"
            );
            let value = text(parameter, "value", file);
            let variable = value
                .strip_prefix("$capability_context.")
                .unwrap_or_else(|| panic!("{file}: {value} reads the capability context"));
            assert!(
                declared.contains(variable),
                "{file}: {variable} is declared"
            );
            used_context.insert(variable.to_string());
        }
        let results = function["result"].as_object().expect("a result mapping");
        for entry in scenario["capability_context"]
            .as_array()
            .expect("capability_context")
        {
            let variable = text(entry, "name", file);
            assert!(
                declared.contains(variable),
                "{file}: {variable} is declared"
            );
            let value = text(entry, "value", file);
            let key = value
                .strip_prefix("$target_result.")
                .unwrap_or_else(|| panic!("{file}: {value} reads the function result"));
            assert!(results.contains_key(key), "{file}: {name} returns {key}");
        }
    }
    let declared: BTreeSet<String> = declared.iter().map(|s| s.to_string()).collect();
    assert_eq!(used_context, declared, "every declared variable is used");
}

#[test]
fn the_dockerfile_builds_the_same_binary_into_a_pinned_nonroot_image() {
    let dockerfile = read("Dockerfile");
    let from: Vec<&str> = dockerfile
        .lines()
        .filter(|line| line.starts_with("FROM "))
        .collect();
    assert_eq!(from.len(), 2, "multi-stage: build and runtime");
    for line in &from {
        let image = line.split_whitespace().nth(1).unwrap_or_default();
        let (reference, digest) = image.split_once("@sha256:").expect("pinned by digest");
        assert!(
            reference.contains(':') && !reference.ends_with(":latest"),
            "{line}: a tag"
        );
        assert_eq!(digest.len(), 64, "{line}");
        assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
    }
    assert!(from[1].contains("distroless"), "small final image");
    assert!(dockerfile.contains("cargo build --release --locked"));
    assert!(dockerfile.contains("\nUSER nonroot"));
    assert!(dockerfile.contains("\nEXPOSE 8080"));
    assert!(dockerfile.contains("/health"), "the probe is documented");
    let ignore = read(".dockerignore");
    for excluded in ["target/", ".git", ".venv/", "deploy/dist/"] {
        assert!(
            ignore.lines().any(|l| l.trim() == excluded),
            ".dockerignore has {excluded}"
        );
    }
}

#[test]
fn the_docker_manifest_runs_the_same_app_as_the_buildpack_manifest() {
    let buildpack = application();
    let docker = yaml_file("deploy/manifest-docker.yml");
    let docker = &docker["applications"][0];
    assert!(docker["docker"]["image"].is_string(), "an image to pull");
    assert!(docker.get("path").is_none() && docker.get("buildpacks").is_none());
    for key in [
        "name",
        "memory",
        "instances",
        "health-check-type",
        "health-check-http-endpoint",
        "routes",
        "env",
        "services",
    ] {
        assert_eq!(
            docker[key], buildpack[key],
            "deploy/manifest-docker.yml: {key}"
        );
    }
    // The optional bindings are comments: the same ones in both files.
    let optional = |file: &str| -> Vec<String> {
        read(file)
            .lines()
            .filter_map(|line| line.trim().strip_prefix("# - "))
            .filter_map(|rest| rest.split_whitespace().next())
            .map(str::to_string)
            .collect()
    };
    let in_buildpack = optional("manifest.yml");
    assert!(
        in_buildpack.contains(&"order-exception-agent-connectivity".to_string()),
        "{in_buildpack:?}"
    );
    assert_eq!(
        optional("deploy/manifest-docker.yml"),
        in_buildpack,
        "deploy/manifest-docker.yml offers the optional bindings of manifest.yml"
    );
}
