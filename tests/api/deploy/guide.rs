//! The deploy guide read as an admin follows it: every instance the manifest
//! binds is a required entitlement, every role collection the XSUAA set-up
//! defines is one to assign, nothing is used before the step that makes it,
//! and the names SAP's tools ask for are spelled as they ask. (What SAP's
//! Joule CLI itself says of `joule/` and of the names it reads is checked by
//! `.ci/joule-check`, which installs it.)

use super::support::{DEPLOY_GUIDE, json_file, read, yaml_file};

/// The text of the guide's step 0 between `from` and the next bullet.
fn bullet<'a>(guide: &'a str, from: &str) -> &'a str {
    let start = guide
        .find(from)
        .unwrap_or_else(|| panic!("{DEPLOY_GUIDE} has a bullet starting {from:?}"));
    let rest = &guide[start..];
    let end = rest[1..].find("\n- ").map_or(rest.len(), |at| at + 1);
    &rest[..end]
}

/// The service offering of each `cf create-service <offering> <plan> <instance>`.
fn offering_of(guide: &str, instance: &str) -> String {
    guide
        .lines()
        .filter_map(|line| line.trim().strip_prefix("cf create-service "))
        .find_map(|rest| {
            let words: Vec<&str> = rest.split_whitespace().collect();
            (words.get(2) == Some(&instance)).then(|| words[0].to_string())
        })
        .unwrap_or_else(|| panic!("{DEPLOY_GUIDE} creates the instance {instance}"))
}

#[test]
fn every_instance_the_manifest_binds_is_a_required_entitlement() {
    let guide = read(DEPLOY_GUIDE);
    let manifest = yaml_file("manifest.yml");
    let bound: Vec<String> = manifest["applications"][0]["services"]
        .as_array()
        .expect("the manifest binds services")
        .iter()
        .map(|service| service.as_str().expect("a name").to_string())
        .collect();
    let entitlements = bullet(&guide, "- Entitlements in the agent's subaccount").to_lowercase();
    let (required, optional) = entitlements
        .split_once("optionally")
        .unwrap_or((&entitlements, ""));
    for instance in &bound {
        let offering = offering_of(&guide, instance);
        assert!(
            required.contains(&format!("`{offering}`")),
            "`{offering}` ({instance}) is bound by manifest.yml, so `cf push` fails without it: \
             the guide must list it among the required entitlements, not the optional ones:\n{entitlements}"
        );
        assert!(
            !optional.contains(&format!("`{offering}`")),
            "`{offering}` is bound by manifest.yml but listed as optional:\n{entitlements}"
        );
    }
}

#[test]
fn every_role_collection_of_xs_security_is_one_to_assign() {
    let guide = read(DEPLOY_GUIDE);
    let roles = guide
        .split_once("## Roles to assign")
        .expect("the guide has a section Roles to assign")
        .1;
    let roles = roles
        .split_once("\n## ")
        .map_or(roles, |(section, _)| section);
    let xs = json_file("xs-security.json");
    let collections = xs["role-collections"].as_array().expect("role-collections");
    assert!(!collections.is_empty());
    for collection in collections {
        let name = collection["name"].as_str().expect("a role collection name");
        assert!(
            roles.contains(&format!("`{name}`")),
            "xs-security.json defines the role collection {name}; {DEPLOY_GUIDE} \
             must say whom to assign it to (section Roles to assign)"
        );
    }
}

#[test]
fn the_destination_service_key_is_made_before_it_is_used() {
    let guide = read(DEPLOY_GUIDE);
    let key = "agent-destination-key.json";
    let made = guide
        .find(&format!("> {key}"))
        .unwrap_or_else(|| panic!("{DEPLOY_GUIDE} says how to make {key}"));
    let first_use = guide
        .match_indices(key)
        .map(|(at, _)| at)
        .find(|&at| at != made + 2)
        .expect("the key is used");
    assert!(
        made < first_use,
        "{DEPLOY_GUIDE} uses {key} (at byte {first_use}) before the command that makes it (at byte {made})"
    );
}

#[test]
fn ssh_is_enabled_before_the_guide_runs_a_command_over_it() {
    let guide = read(DEPLOY_GUIDE);
    let first_ssh = guide
        .find("cf ssh order-exception-agent -c")
        .expect("the guide runs diagnose over cf ssh");
    let enable = guide
        .find("cf enable-ssh order-exception-agent")
        .unwrap_or_else(|| panic!("{DEPLOY_GUIDE} enables SSH for the app"));
    assert!(
        enable < first_ssh,
        "cf enable-ssh (and a restart) comes before the first cf ssh"
    );
    let restart_after_enable = &guide[enable..first_ssh];
    assert!(
        restart_after_enable.contains("cf restart order-exception-agent"),
        "enabling SSH takes effect after a restart"
    );
}

#[test]
fn the_joule_cli_dependency_is_spelled_as_the_cli_asks_for_it() {
    // `@sap/joule-studio-cli-core` 2.0.2 exchanges the user's token with
    // `resource=urn:sap:identity:application:provider:name:Cli2Joule`
    // (dist/esm/auth/authManager.js); `.ci/joule-check` reads it from the
    // installed CLI. Here: the guide never names it in another spelling.
    let guide = read(DEPLOY_GUIDE);
    let wanted = "Cli2Joule";
    let mut spellings: Vec<&str> = guide
        .match_indices(['c', 'C'])
        .filter_map(|(at, _)| guide.get(at..at + wanted.len()))
        .filter(|word| word.eq_ignore_ascii_case(wanted))
        .collect();
    assert!(
        spellings.contains(&wanted),
        "{DEPLOY_GUIDE} names the dependency {wanted}"
    );
    spellings.retain(|word| *word != wanted);
    assert!(
        spellings.is_empty(),
        "{DEPLOY_GUIDE} spells the CLI's dependency otherwise: {spellings:?}"
    );
}

#[test]
fn where_the_guide_promises_buttons_it_says_async_mode_has_none() {
    let guide = read(DEPLOY_GUIDE);
    let async_section = guide
        .split_once("## Asynchronous mode")
        .expect("the guide has an asynchronous mode")
        .1;
    let async_section = async_section
        .split_once("\n## ")
        .map_or(async_section, |(section, _)| section);
    assert!(
        async_section.contains("buttons"),
        "the asynchronous mode says what becomes of the approval buttons"
    );
}
