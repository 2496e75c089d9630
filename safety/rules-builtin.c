/*
 * rules-builtin.c: the built-in credential rules, one entry per rule.
 *
 * Written from each provider's documented token format: a fixed prefix
 * and alphabet where the provider has one, otherwise the provider's name
 * as context next to a value of the documented length and alphabet.
 *
 * Each entry: id, description, keywords ('|'-separated, matched without
 * regard to ASCII case; a leading \b means "only at the start of a word"),
 * a PCRE2 regex whose group 1 (if any) is the secret, and optionally an
 * entropy floor, an allowlist regex, flags, a validator and the window
 * around each keyword hit that the regex is run on.
 */
#include "config.h"

#include "safety/safety-int.h"

/* A token starts and ends at a word boundary of its alphabet. */
#define B  "(?<![A-Za-z0-9_\\-])"
#define E  "(?![A-Za-z0-9_\\-])"
#define EA "(?![A-Za-z0-9])"

/* "NAME...  = VALUE" in .env, YAML, JSON, headers, code and query
 * strings: the provider name (case-insensitive), up to 24 more identifier
 * bytes, an assignment, then the value as group 1. */
#define KV(name, value)                                                        \
	"(?i:" name ")[A-Za-z0-9_.\\-]{0,24}[\"']?\\s{0,4}(?:=|:=|=>|:|\\(|\\s)"   \
	"\\s{0,4}[\"'`]?(?:Bearer\\s+|token\\s+)?(" value ")" EA

#define HEX(n)	 "[a-f0-9]{" #n "}"
#define UHEX(n)	 "[A-Fa-f0-9]{" #n "}"
#define ALNUM(n) "[A-Za-z0-9]{" #n "}"
#define UUID                                                                   \
	"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-"   \
	"fA-F]{12}"

#define RULE(i, d, k, r, ...)                                                  \
	{                                                                      \
		.id = i, .description = d, .keywords = k, .regex = r,          \
		__VA_ARGS__                                                    \
	}

/* The placeholder and shape checks of LEAK_RF_VALUE apply to the values
 * of context rules; UUIDs are allowed where the provider uses them. */
#define CTX  .flags = LEAK_RF_VALUE
#define CTXU .flags = LEAK_RF_VALUE | LEAK_RF_UUID_OK | LEAK_RF_HEX_OK
#define CTXH .flags = LEAK_RF_VALUE | LEAK_RF_HEX_OK

const struct leak_rule_def leak_builtin_rules[] = {
	/* ---- Amazon Web Services ---- */
	RULE("aws-access-key-id", "AWS access key ID",
	    "akia|asia|abia|acca|agpa|aida|aipa|anpa|anva|aroa|apka|asca",
	    B "((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)"
	      "[A-Z2-7]{16})" EA,
	    .entropy = 3.0, .before = 4),
	RULE("aws-secret-access-key", "AWS secret access key",
	    "secret_access_key|secretaccesskey|secret-access-key|aws",
	    "(?i:aws[A-Za-z0-9_\\-]{0,20}secret[A-Za-z0-9_\\-]{0,20}|"
	    "secret[_\\-]?access[_\\-]?key[A-Za-z0-9_\\-]{0,16})"
	    "[\"']?\\s{0,4}(?:=|:|:=|=>)\\s{0,4}[\"']?"
	    "([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
	    .entropy = 4.0, .before = 40),
	RULE("aws-session-token", "AWS session token",
	    "session_token|sessiontoken|security_token|iqojb3jpz2lux2vj|"
	    "fwogzxivyxdz",
	    "((?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9/+=]{100,1200})",
	    .entropy = 4.0, .before = 40, .after = 1400),
	RULE("aws-mws-key", "Amazon MWS auth token", "amzn.mws.",
	    B "(amzn\\.mws\\." UUID ")" EA),

	/* ---- Google Cloud and Google APIs ---- */
	RULE("gcp-api-key", "Google API key (Cloud, Maps, Gemini)", "aiza",
	    B "(AIza[0-9A-Za-z_\\-]{35})" E, .entropy = 3.5),
	RULE("gcp-oauth-client-secret", "Google OAuth client secret", "gocspx-",
	    B "(GOCSPX-[A-Za-z0-9_\\-]{28})" E),
	RULE("gcp-oauth-access-token", "Google OAuth access token", "ya29.",
	    B "(ya29\\.[0-9A-Za-z_\\-]{30,2048})" E, .after = 2100),
	RULE("gcp-oauth-refresh-token", "Google OAuth refresh token", "1//0",
	    "(?<![A-Za-z0-9/])(1//0[A-Za-z0-9_\\-]{40,512})" E, .entropy = 4.0,
	    .after = 600),
	RULE("gcp-service-account-key-id",
	    "Google service account private key id", "private_key_id",
	    "\"private_key_id\"\\s*:\\s*\"(" HEX(40) ")\"", .before = 4,
	    .flags = LEAK_RF_HEX_OK),

	/* ---- Microsoft Azure ---- */
	RULE("azure-storage-account-key", "Azure storage account key",
	    "accountkey=", "(?i:AccountKey=)([A-Za-z0-9+/]{86}==)"),
	RULE("azure-shared-access-key",
	    "Azure Service Bus / Event Hubs / IoT shared access key",
	    "sharedaccesskey=", "(?i:SharedAccessKey=)([A-Za-z0-9+/]{42,44}=)"),
	RULE("azure-sas-token", "Azure shared access signature", "sig=",
	    "(?i)(?:[?&;]|^|\\s)sv=\\d{4}-\\d\\d-\\d\\d&[^\\s\"'<>]{0,400}?"
	    "sig=([A-Za-z0-9%+/]{40,120}(?:%3D|=){0,2})",
	    .before = 500, .after = 140),
	RULE("azure-ad-client-secret", "Microsoft Entra ID client secret", "q~",
	    "(?<![A-Za-z0-9_~.\\-])([A-Za-z0-9_~.\\-]{3}[0-9]Q~[A-Za-z0-9_~.\\-"
	    "]"
	    "{31,34})(?![A-Za-z0-9_~.\\-])",
	    .before = 8, .entropy = 3.5),
	RULE("azure-devops-pat", "Azure DevOps personal access token", "azdo",
	    B "([A-Za-z0-9]{52}JQQJ9[9A-Za-z][A-Za-z0-9]{3}AZDO[A-Za-z0-9]{4}"
	      ")" EA,
	    .before = 80),
	RULE("azure-devops-pat-legacy", "Azure DevOps legacy PAT",
	    "azure_devops|azuredevops|ado_pat|devops_pat|azure-devops",
	    KV("azure[_\\-]?devops|ado_pat|devops_pat", "[a-z0-9]{52}"), CTX),
	RULE("azure-openai-key", "Azure OpenAI / Cognitive Services key",
	    "azure_openai|azureopenai|ocp-apim-subscription-key|cognitive",
	    KV("azure_?openai|ocp-apim-subscription-key|cognitive",
		"[a-f0-9]{32}|[A-Za-z0-9]{84}"),
	    CTXH),
	RULE("azure-cosmosdb-key", "Azure Cosmos DB account key", "cosmos",
	    KV("cosmos", "[A-Za-z0-9+/]{86}=="), CTX),

	/* ---- other clouds and hosting ---- */
	RULE("digitalocean-pat", "DigitalOcean personal access token",
	    "dop_v1_", B "(dop_v1_" HEX(64) ")" EA),
	RULE("digitalocean-oauth-token", "DigitalOcean OAuth token", "doo_v1_",
	    B "(doo_v1_" HEX(64) ")" EA),
	RULE("digitalocean-refresh-token", "DigitalOcean refresh token",
	    "dor_v1_", B "(dor_v1_" HEX(64) ")" EA),
	RULE("alibaba-access-key-id", "Alibaba Cloud AccessKey ID", "ltai",
	    B "(LTAI[A-Za-z0-9]{12,20})" EA, .entropy = 3.0),
	RULE("alibaba-secret-key", "Alibaba Cloud AccessKey secret",
	    "alibaba|aliyun|accesskeysecret|access_key_secret",
	    KV("alibaba|aliyun|access_?key_?secret", ALNUM(30)), CTX),
	RULE("tencent-secret-id", "Tencent Cloud SecretId", "akid",
	    B "(AKID[A-Za-z0-9]{32})" EA, .entropy = 3.5),
	RULE("tencent-secret-key", "Tencent Cloud SecretKey",
	    "tencent|secretkey|secret_key",
	    KV("tencent[A-Za-z_]{0,12}secret[_\\-]?key|tencentcloud",
		ALNUM(32)),
	    CTX),
	RULE("ibm-cloud-api-key", "IBM Cloud API key", "ibm",
	    KV("ibm", "[A-Za-z0-9_\\-]{44}"), CTX),
	RULE("oracle-cloud-fingerprint-key", "Oracle Cloud API signing key",
	    "ocid1.", B "(ocid1\\.credential\\.[a-z0-9.\\-]{20,120})" E),
	RULE("cloudflare-api-token", "Cloudflare API token",
	    "cloudflare|cf_api|cf-api|cf_token",
	    KV("cloudflare|cf[_\\-]api|cf_token", "[A-Za-z0-9_\\-]{40}"), CTX),
	RULE("cloudflare-global-api-key", "Cloudflare global API key",
	    "cloudflare|x-auth-key|cf_api_key",
	    KV("cloudflare|x-auth-key|cf_api_key", HEX(37)), CTXH),
	RULE("cloudflare-origin-ca-key", "Cloudflare Origin CA key", "v1.0-",
	    B "(v1\\.0-" HEX(24) "-" HEX(146) ")" EA, .after = 200),
	RULE("heroku-api-key", "Heroku API key", "heroku", KV("heroku", UUID),
	    CTXU),
	RULE("heroku-api-key-v2", "Heroku platform API token", "hrku-",
	    B "(HRKU-[A-Za-z0-9_\\-]{36,70})" E),
	RULE("flyio-access-token", "Fly.io access token",
	    "fo1_|fm1r_|fm1a_|fm2_",
	    B "((?:fo1_|fm1[ar]_|fm2_)[A-Za-z0-9+/=_\\-]{40,800})",
	    .after = 900, .entropy = 4.0),
	RULE("vercel-token", "Vercel access token", "vercel",
	    KV("vercel", "[A-Za-z0-9]{24}"), CTX),
	RULE("vercel-token-v2", "Vercel prefixed token",
	    "vcp_|vci_|vca_|vcr_|vck_", B "(vc[pcikar]_[A-Za-z0-9]{24,60})" EA,
	    .entropy = 3.5),
	RULE("netlify-token", "Netlify access token",
	    "nfp_|nfc_|nfo_|nfu_|nfb_", B "(nf[pcoub]_[A-Za-z0-9]{36,40})" EA,
	    .entropy = 3.5),
	RULE("netlify-token-legacy", "Netlify legacy token", "netlify",
	    KV("netlify", "[A-Za-z0-9_\\-]{40,46}"), CTX),
	RULE("linode-token", "Linode (Akamai) API token", "linode",
	    KV("linode", HEX(64)), CTXH),
	RULE("scaleway-access-key", "Scaleway access key", "scw",
	    B "(SCW[A-Z0-9]{17})" EA, .entropy = 3.0),
	RULE("scaleway-secret-key", "Scaleway secret key",
	    "scw_secret|scaleway", KV("scw_secret|scaleway", UUID), CTXU),
	RULE("render-api-key", "Render API key", "rnd_",
	    B "(rnd_[A-Za-z0-9]{32})" EA, .entropy = 3.5),
	RULE("railway-token", "Railway API token", "railway",
	    KV("railway", UUID), CTXU),
	RULE("supabase-access-token", "Supabase access token", "sbp_",
	    B "(sbp_(?:v0_)?" HEX(40) ")" EA),
	RULE("supabase-secret-key", "Supabase secret API key", "sb_secret_",
	    B "(sb_secret_[A-Za-z0-9_\\-]{30,60})" E),
	RULE("planetscale-token", "PlanetScale service token / password",
	    "pscale_tkn_|pscale_pw_|pscale_oauth_",
	    B "(pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\\-]{32,64})" E),
	RULE("neon-api-key", "Neon API key", "napi_",
	    B "(napi_[a-z0-9]{64})" EA),
	RULE("hashicorp-vault-token", "HashiCorp Vault token", "hvs.|hvb.|hvr.",
	    B "(hv[sbr]\\.[A-Za-z0-9_\\-]{24,200})" E, .entropy = 3.5),
	RULE("hashicorp-vault-token-legacy", "HashiCorp Vault legacy token",
	    "vault", KV("vault", "s\\.[A-Za-z0-9]{24}"), CTX),
	RULE("terraform-cloud-token", "Terraform Cloud / Enterprise API token",
	    "atlasv1",
	    B "([A-Za-z0-9]{14}\\.atlasv1\\.[A-Za-z0-9_=\\-]{60,70})" E,
	    .before = 16),
	RULE("doppler-token", "Doppler token",
	    "dp.pt.|dp.st.|dp.sa.|dp.ct.|dp.scim.|dp.audit.",
	    B "(dp\\.(?:pt|st|sa|ct|scim|audit)\\.[A-Za-z0-9_.\\-]{40,60})" E),
	RULE("pulumi-access-token", "Pulumi access token", "pul-",
	    B "(pul-" HEX(40) ")" EA),
	RULE("databricks-token", "Databricks personal access token", "dapi",
	    B "(dapi" HEX(32) "(?:-\\d)?)" EA),
	RULE("snowflake-password", "Snowflake account password", "snowflake",
	    KV("snowflake[A-Za-z_]{0,12}pass(?:word)?", "[^\\s\"'`]{8,64}"),
	    .flags = LEAK_RF_VALUE | LEAK_RF_PASSWORD),
	RULE("confluent-api-secret", "Confluent Cloud API secret", "confluent",
	    KV("confluent", "[A-Za-z0-9+/]{64}"), CTX),
	RULE("mongodb-atlas-key", "MongoDB Atlas private API key",
	    "atlas_private|mongodb_atlas|atlas_api",
	    KV("atlas_private|mongodb_atlas|atlas_api", UUID), CTXU),
	RULE("openshift-token", "OpenShift user token", "sha256~",
	    B "(sha256~[A-Za-z0-9_\\-]{43})" E, .before = 4),
	RULE("kubernetes-sa-token", "Kubernetes service account token (JWT)",
	    "kubernetes.io/serviceaccount",
	    "(eyJ[A-Za-z0-9_\\-]{10,}\\.eyJ[A-Za-z0-9_\\-]{10,}\\."
	    "[A-Za-z0-9_\\-]{10,})",
	    .before = 2000),

	/* ---- source hosting and CI ---- */
	RULE("github-pat", "GitHub personal access token (classic)", "ghp_",
	    B "(ghp_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-fine-grained-pat", "GitHub fine-grained PAT",
	    "github_pat_", B "(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})" EA),
	RULE("github-oauth-token", "GitHub OAuth access token", "gho_",
	    B "(gho_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-user-to-server-token", "GitHub App user-to-server token",
	    "ghu_", B "(ghu_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-app-token", "GitHub App installation token", "ghs_",
	    B "(ghs_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("github-refresh-token", "GitHub refresh token", "ghr_",
	    B "(ghr_[A-Za-z0-9]{36,76})" EA, .entropy = 3.5),
	RULE("github-oauth-client-secret", "GitHub OAuth app client secret",
	    "github",
	    KV("github[A-Za-z_]{0,10}(?:client)?[_\\-]?secret", HEX(40)), CTXH),
	RULE("gitlab-pat", "GitLab personal access token", "glpat-",
	    B "(glpat-[A-Za-z0-9_\\-.]{20,80})" E),
	RULE("gitlab-deploy-token", "GitLab deploy token", "gldt-",
	    B "(gldt-[A-Za-z0-9_\\-]{20,60})" E),
	RULE("gitlab-runner-token", "GitLab runner authentication token",
	    "glrt-", B "(glrt-[A-Za-z0-9_\\-.]{20,80})" E),
	RULE("gitlab-runner-registration-token",
	    "GitLab runner registration token", "gr1348941",
	    B "(GR1348941[A-Za-z0-9_\\-]{20})" E),
	RULE("gitlab-pipeline-trigger-token", "GitLab pipeline trigger token",
	    "glptt-", B "(glptt-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-feed-token", "GitLab feed token", "glft-",
	    B "(glft-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-incoming-mail-token", "GitLab incoming mail token",
	    "glimt-", B "(glimt-[A-Za-z0-9_\\-]{25,40})" E),
	RULE("gitlab-agent-token", "GitLab agent for Kubernetes token",
	    "glagent-", B "(glagent-[A-Za-z0-9_\\-]{50,80})" E),
	RULE("gitlab-oauth-secret", "GitLab OAuth application secret", "gloas-",
	    B "(gloas-[A-Za-z0-9_\\-]{64})" E),
	RULE("gitlab-ci-job-token", "GitLab CI/CD job token", "glcbt-",
	    B "(glcbt-[A-Za-z0-9_\\-]{20,80})" E),
	RULE("gitlab-scim-token", "GitLab SCIM token", "glsoat-",
	    B "(glsoat-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("gitlab-feature-flag-token", "GitLab feature flag client token",
	    "glffct-", B "(glffct-[A-Za-z0-9_\\-]{20,40})" E),
	RULE("bitbucket-app-password", "Bitbucket / Atlassian app password",
	    "atbb", B "(ATBB[A-Za-z0-9_=.\\-]{28,40})" E, .entropy = 3.5),
	RULE("bitbucket-access-token", "Bitbucket repository access token",
	    "atctt3", B "(ATCTT3xFfGN0[A-Za-z0-9_=\\-]{100,220})",
	    .after = 300),
	RULE("bitbucket-client-secret", "Bitbucket OAuth consumer secret",
	    "bitbucket",
	    KV("bitbucket[A-Za-z_]{0,10}secret", "[A-Za-z0-9_\\-]{32,64}"),
	    CTX),
	RULE("atlassian-api-token", "Atlassian (Jira, Confluence) API token",
	    "atatt3", B "(ATATT3[A-Za-z0-9_=\\-]{150,220})", .after = 300),
	RULE("atlassian-api-token-legacy", "Atlassian legacy API token",
	    "atlassian|jira|confluence",
	    KV("atlassian|jira|confluence", "[A-Za-z0-9]{24}"), CTX),
	RULE("gitea-token", "Gitea / Forgejo access token", "gitea|forgejo",
	    KV("gitea|forgejo", HEX(40)), CTXH),
	RULE("circleci-token", "CircleCI personal API token", "ccipat_",
	    B "(CCIPAT_[A-Za-z0-9]{22}_" HEX(40) ")" EA),
	RULE("circleci-token-legacy", "CircleCI API token", "circle",
	    KV("circle(?:ci)?", HEX(40)), CTXH),
	RULE("travis-ci-token", "Travis CI API token", "travis",
	    KV("travis", "[A-Za-z0-9_\\-]{22}"), CTX),
	RULE("buildkite-token", "Buildkite agent / API token", "bkua_",
	    B "(bkua_" HEX(40) ")" EA),
	RULE("drone-ci-token", "Drone CI token", "drone",
	    KV("drone", "[A-Za-z0-9]{32}"), CTX),
	RULE("codecov-token", "Codecov upload token", "codecov",
	    KV("codecov", UUID "|" HEX(32)), CTXU),
	RULE("sonarqube-token", "SonarQube / SonarCloud token",
	    "squ_|sqp_|sqa_", B "(sq[upa]_" HEX(40) ")" EA),
	RULE("snyk-token", "Snyk API token", "snyk", KV("snyk", UUID), CTXU),
	RULE("sourcegraph-token", "Sourcegraph access token", "sgp_",
	    B "(sgp_(?:[a-f0-9]{16}_)?" HEX(40) ")" EA),
	RULE("jenkins-api-token", "Jenkins API token", "jenkins",
	    KV("jenkins", "11" HEX(32)), CTXH),

	/* ---- AI providers ---- */
	RULE("openai-api-key", "OpenAI API key", "t3blbkfj",
	    B "(sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_\\-]{16,160}"
	      "T3BlbkFJ[A-Za-z0-9_\\-]{16,160})" E,
	    .before = 200, .after = 200),
	RULE("openai-project-key", "OpenAI project / service account key",
	    "sk-proj-|sk-svcacct-|sk-admin-|sk-none-",
	    B "(sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\\-]{40,200})" E,
	    .entropy = 4.0),
	RULE("anthropic-api-key", "Anthropic API key", "sk-ant-api",
	    B "(sk-ant-api\\d\\d-[A-Za-z0-9_\\-]{80,110})" E),
	RULE("anthropic-admin-key", "Anthropic admin API key", "sk-ant-admin",
	    B "(sk-ant-admin\\d\\d-[A-Za-z0-9_\\-]{80,110})" E),
	RULE("anthropic-oauth-token", "Anthropic OAuth token",
	    "sk-ant-oat|sk-ant-ort",
	    B "(sk-ant-o[ar]t\\d\\d-[A-Za-z0-9_\\-]{80,110})" E),
	RULE("openrouter-api-key", "OpenRouter API key", "sk-or-v1-",
	    B "(sk-or-v1-" HEX(64) ")" EA),
	RULE("huggingface-token", "Hugging Face access token", "hf_",
	    B "(hf_[A-Za-z0-9]{34,40})" EA, .entropy = 3.5),
	RULE("huggingface-org-token", "Hugging Face organization token",
	    "api_org_", B "(api_org_[A-Za-z0-9]{34})" EA, .entropy = 3.5),
	RULE("groq-api-key", "Groq API key", "gsk_",
	    B "(gsk_[A-Za-z0-9]{52})" EA),
	RULE("replicate-api-token", "Replicate API token", "r8_",
	    B "(r8_[A-Za-z0-9]{37})" EA, .entropy = 3.5),
	RULE("perplexity-api-key", "Perplexity API key", "pplx-",
	    B "(pplx-[A-Za-z0-9]{48})" EA),
	RULE("xai-api-key", "xAI API key", "xai-",
	    B "(xai-[A-Za-z0-9]{70,90})" EA),
	RULE("langsmith-api-key", "LangSmith API key", "lsv2_",
	    B "(lsv2_(?:pt|sk)_" HEX(32) "_" HEX(10) ")" EA),
	RULE("pinecone-api-key", "Pinecone API key", "pcsk_",
	    B "(pcsk_[A-Za-z0-9_]{50,90})" EA),
	RULE("fireworks-api-key", "Fireworks AI API key", "fw_",
	    B "(fw_[A-Za-z0-9]{24,40})" EA, .entropy = 3.5),
	RULE("together-api-key", "Together AI API key", "tgp_v1_|together",
	    B "(tgp_v1_[A-Za-z0-9_\\-]{43})|" KV("together", HEX(64)), CTXH),
	RULE("elevenlabs-api-key", "ElevenLabs API key",
	    "\\bsk_|elevenlabs|xi-api-key",
	    B "(sk_" HEX(48) ")" EA "|" KV("elevenlabs|xi-api-key", HEX(32)),
	    CTXH),
	RULE("cohere-api-key", "Cohere API key", "cohere|co_api_key",
	    KV("cohere|co_api_key", "[A-Za-z0-9]{40}"), CTX),
	RULE("mistral-api-key", "Mistral AI API key", "mistral",
	    KV("mistral", "[A-Za-z0-9]{32}"), CTX),
	RULE("deepseek-api-key", "DeepSeek API key", "deepseek",
	    KV("deepseek", "sk-" HEX(32)), CTXH),
	RULE("ai21-api-key", "AI21 Labs API key", "ai21",
	    KV("ai21", "[A-Za-z0-9]{32}|" UUID), CTXU),
	RULE("assemblyai-api-key", "AssemblyAI API key",
	    "assemblyai|assembly_ai", KV("assembly_?ai", HEX(32)), CTXH),
	RULE("deepgram-api-key", "Deepgram API key", "deepgram",
	    KV("deepgram", HEX(40)), CTXH),
	RULE("wandb-api-key", "Weights & Biases API key", "wandb",
	    KV("wandb", HEX(40) "|[a-z0-9\\-]{0,10}v1_[A-Za-z0-9]{70,90}"),
	    CTXH),
	RULE("voyage-api-key", "Voyage AI API key", "pa-|voyage",
	    "(?:voyage|VOYAGE)[A-Za-z_]{0,12}[\"']?\\s{0,4}[=:]\\s{0,4}[\"']?"
	    "(pa-[A-Za-z0-9_\\-]{40,50})" E,
	    .before = 40),
	RULE("stability-api-key", "Stability AI API key", "stability",
	    KV("stability", "sk-[A-Za-z0-9]{48}"), CTX),
	RULE("sk-api-key", "API key in the sk- format (OpenAI-compatible)",
	    "\\bsk-", B "(sk-[A-Za-z0-9]{32,64})" EA, .entropy = 4.0,
	    .flags = LEAK_RF_GENERIC),

	/* ---- payments and commerce ---- */
	RULE("stripe-secret-key", "Stripe secret key", "sk_live_|sk_test_",
	    B "(sk_(?:live|test)_[A-Za-z0-9]{24,247})" EA, .entropy = 3.5),
	RULE("stripe-restricted-key", "Stripe restricted key",
	    "rk_live_|rk_test_", B "(rk_(?:live|test)_[A-Za-z0-9]{24,247})" EA,
	    .entropy = 3.5),
	RULE("stripe-webhook-secret", "Stripe webhook signing secret", "whsec_",
	    B "(whsec_[A-Za-z0-9+/=]{32,90})" E, .entropy = 3.5),
	RULE("square-access-token", "Square access token", "eaaa|sq0atp-",
	    B "(EAAA[A-Za-z0-9_\\-]{60}|sq0atp-[A-Za-z0-9_\\-]{22})" E,
	    .entropy = 3.5),
	RULE("square-oauth-secret", "Square OAuth secret", "sq0csp-",
	    B "(sq0csp-[A-Za-z0-9_\\-]{43})" E),
	RULE("braintree-access-token", "PayPal Braintree access token",
	    "access_token$",
	    "(access_token\\$(?:production|sandbox)\\$[a-z0-9]{16}\\$" HEX(
		32) ")" EA),
	RULE("paypal-client-secret", "PayPal client secret", "paypal",
	    KV("paypal[A-Za-z_]{0,10}secret", "[A-Za-z0-9_\\-]{80}"), CTX),
	RULE("shopify-access-token", "Shopify access token",
	    "shpat_|shpca_|shppa_", B "(shp(?:at|ca|pa)_" UHEX(32) ")" EA),
	RULE("shopify-shared-secret", "Shopify app shared secret", "shpss_",
	    B "(shpss_" UHEX(32) ")" EA),
	RULE("flutterwave-secret-key", "Flutterwave secret key", "flwseck",
	    B "(FLWSECK(?:_TEST)?-" HEX(32) "-X)" EA),
	RULE("flutterwave-encryption-key", "Flutterwave encryption key",
	    "flwseck_test", B "(FLWSECK_TEST" HEX(12) ")" EA),
	RULE("plaid-access-token", "Plaid access token",
	    "access-sandbox-|access-development-|access-production-",
	    B "(access-(?:sandbox|development|production)-" UUID ")" EA),
	RULE("plaid-secret", "Plaid API secret", "plaid",
	    KV("plaid[A-Za-z_]{0,10}secret", HEX(30)), CTXH),
	RULE("coinbase-api-secret", "Coinbase API secret", "coinbase",
	    KV("coinbase", "[A-Za-z0-9+/]{64}={0,2}|" ALNUM(32)), CTX),
	RULE("razorpay-secret", "Razorpay key secret", "razorpay",
	    KV("razorpay[A-Za-z_]{0,10}secret", "[A-Za-z0-9]{24}"), CTX),
	RULE("adyen-api-key", "Adyen API key", "aqe",
	    B "(AQE[A-Za-z0-9]{3}[A-Za-z0-9+/=_\\-]{150,300})", .after = 400,
	    .entropy = 4.0),
	RULE("gocardless-token", "GoCardless access token", "live_|sandbox_",
	    "(?i:gocardless)[A-Za-z_]{0,20}[\"']?\\s{0,4}[=:]\\s{0,4}[\"']?"
	    "((?:live|sandbox)_[A-Za-z0-9_\\-=]{40})" E,
	    .before = 60),
	RULE("lemonsqueezy-api-key", "Lemon Squeezy API key", "lemon",
	    KV("lemon_?squeezy",
		"eyJ[A-Za-z0-9_\\-]{10,}\\.eyJ[A-Za-z0-9_\\-]{10,}\\."
		"[A-Za-z0-9_\\-]{10,}"),
	    CTX, .after = 1500),
	RULE("easypost-api-key", "EasyPost API key", "ezak|ezt",
	    B "(EZ[AT]K" HEX(54) ")" EA),
	RULE("shippo-api-token", "Shippo API token",
	    "shippo_live_|shippo_test_",
	    B "(shippo_(?:live|test)_" HEX(40) ")" EA),
	RULE("duffel-api-token", "Duffel API token",
	    "duffel_test_|duffel_live_",
	    B "(duffel_(?:test|live)_[A-Za-z0-9_\\-=]{43})" E),

	/* ---- messaging and communications ---- */
	RULE("slack-bot-token", "Slack bot token", "xoxb-",
	    B "(xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24,34})" EA),
	RULE("slack-user-token", "Slack user token", "xoxp-",
	    B "(xoxp-[0-9]{10,13}-[0-9]{10,13}-[0-9]{10,13}-[a-f0-9]{32})" EA),
	RULE("slack-legacy-token", "Slack legacy / workspace token",
	    "xoxa-|xoxo-|xoxs-|xoxr-",
	    B "(xox[aosr]-(?:\\d+-){1,3}[A-Za-z0-9]{10,48})" EA),
	RULE("slack-app-token", "Slack app-level token", "xapp-",
	    B "(xapp-\\d-[A-Z0-9]{9,12}-\\d{10,14}-[a-f0-9]{40,64})" EA),
	RULE("slack-config-token", "Slack configuration / refresh token",
	    "xoxe.xox|xoxe-",
	    B "(xoxe(?:\\.xox[bp])?-\\d-[A-Za-z0-9]{100,170})" EA,
	    .after = 260),
	RULE("slack-webhook-url", "Slack incoming webhook URL",
	    "hooks.slack.com",
	    "(https?://hooks\\.slack\\.com/(?:services|workflows|triggers)/"
	    "[A-Za-z0-9_]{8,12}/[A-Za-z0-9_]{8,12}/[A-Za-z0-9_]{20,48})",
	    .before = 10),
	RULE("discord-webhook-url", "Discord webhook URL", "discord",
	    "(https?://(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/"
	    "webhooks/\\d{17,20}/[A-Za-z0-9_\\-]{60,70})",
	    .before = 30),
	RULE("discord-bot-token", "Discord bot token", "discord|bot ",
	    "(?<![A-Za-z0-9_\\-.])([MNO][A-Za-z0-9_\\-]{23,27}\\.[A-Za-z0-9_\\-"
	    "]"
	    "{6}\\.[A-Za-z0-9_\\-]{27,40})" E,
	    .before = 20, .after = 120),
	RULE("discord-client-secret", "Discord client secret", "discord",
	    KV("discord[A-Za-z_]{0,12}secret", "[A-Za-z0-9_\\-]{32}"), CTX),
	RULE("telegram-bot-token", "Telegram bot API token", ":aa",
	    "(?<![0-9])([0-9]{8,10}:AA[A-Za-z0-9_\\-]{33})" E, .before = 12),
	RULE("twilio-api-key", "Twilio API key SID", "\\bsk",
	    B "(SK" UHEX(32) ")" EA, .entropy = 3.0),
	RULE("twilio-auth-token", "Twilio auth token", "twilio",
	    KV("twilio", HEX(32)), CTXH),
	RULE("sendgrid-api-key", "SendGrid API key", "\\bsg.",
	    B "(SG\\.[A-Za-z0-9_\\-]{22}\\.[A-Za-z0-9_\\-]{43})" E),
	RULE("mailgun-api-key", "Mailgun private API key", "\\bkey-|mailgun",
	    B "(key-" HEX(32) ")" EA
			      "|" KV("mailgun", HEX(32) "-" HEX(8) "-" HEX(8)),
	    CTXH),
	RULE("mailgun-signing-key", "Mailgun webhook signing key", "mailgun",
	    KV("mailgun[A-Za-z_]{0,12}sign", HEX(32)), CTXH),
	RULE("mailchimp-api-key", "Mailchimp API key", "-us",
	    "(?<![A-Za-z0-9])(" HEX(32) "-us[0-9]{1,2})" EA, .before = 34),
	RULE("mandrill-api-key", "Mandrill API key", "mandrill",
	    KV("mandrill", "[A-Za-z0-9_\\-]{22}"), CTX),
	RULE("brevo-api-key", "Brevo (Sendinblue) API key",
	    "xkeysib-|xsmtpsib-",
	    B "(x(?:keysib|smtpsib)-" HEX(64) "-[A-Za-z0-9]{16})" EA),
	RULE("postmark-server-token", "Postmark server token",
	    "postmark|x-postmark-server-token", KV("postmark", UUID), CTXU),
	RULE("mailjet-secret", "Mailjet API secret", "mailjet",
	    KV("mailjet", HEX(32)), CTXH),
	RULE("sparkpost-api-key", "SparkPost API key", "sparkpost",
	    KV("sparkpost", HEX(40)), CTXH),
	RULE("messagebird-api-key", "MessageBird API key",
	    "messagebird|message_bird|message-bird",
	    KV("message[_\\-]?bird", "[A-Za-z0-9]{25}"), CTX),
	RULE("vonage-api-secret", "Vonage (Nexmo) API secret", "vonage|nexmo",
	    KV("vonage|nexmo", "[A-Za-z0-9]{16}"), CTX),
	RULE("plivo-auth-token", "Plivo auth token", "plivo",
	    KV("plivo", "[A-Za-z0-9]{40}"), CTX),
	RULE("teams-webhook-url", "Microsoft Teams incoming webhook URL",
	    "webhook.office.com",
	    "(https://[a-z0-9\\-]+\\.webhook\\.office\\.com/webhookb2/"
	    "[A-Za-z0-9@\\-]{36,90}/IncomingWebhook/[A-Za-z0-9]{32}/"
	    "[A-Za-z0-9\\-]{36}(?:/[A-Za-z0-9_\\-]{40,50})?)",
	    .before = 40, .after = 400),
	RULE("mattermost-token", "Mattermost access token", "mattermost",
	    KV("mattermost", "[a-z0-9]{26}"), CTX),
	RULE("intercom-token", "Intercom access token", "intercom",
	    KV("intercom", "[A-Za-z0-9=_\\-]{60}"), CTX),
	RULE("sendbird-token", "Sendbird API token", "sendbird",
	    KV("sendbird", HEX(40)), CTXH),
	RULE("pusher-secret", "Pusher app secret", "pusher",
	    KV("pusher[A-Za-z_]{0,10}secret", "[a-f0-9]{20}"), CTXH),
	RULE("zendesk-api-token", "Zendesk API token", "zendesk",
	    KV("zendesk", "[A-Za-z0-9]{40}"), CTX),
	RULE("freshdesk-api-key", "Freshdesk API key", "freshdesk",
	    KV("freshdesk", "[A-Za-z0-9]{20}"), CTX),

	/* ---- social and platform APIs ---- */
	RULE("twitter-bearer-token", "X (Twitter) bearer token",
	    "aaaaaaaaaaaaaaaaaaaaa",
	    "(AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{40,120})" EA, .before = 4),
	RULE("twitter-api-secret", "X (Twitter) API / access secret",
	    "twitter|consumer_secret",
	    KV("twitter[A-Za-z_]{0,16}secret|consumer_secret",
		"[A-Za-z0-9]{45,50}"),
	    CTX),
	RULE("facebook-access-token", "Facebook / Meta access token", "\\beaa",
	    B "(EAA[A-Za-z0-9]{90,300})" EA, .entropy = 4.0, .after = 320),
	RULE("facebook-app-secret", "Facebook app secret", "facebook|fb_app",
	    KV("facebook|fb_app", HEX(32)), CTXH),
	RULE("instagram-token", "Instagram Graph API token", "igqv",
	    B "(IGQV[A-Za-z0-9_\\-]{100,300})" E, .after = 320),
	RULE("linkedin-client-secret", "LinkedIn client secret", "linkedin",
	    KV("linkedin", "[A-Za-z0-9]{16}"), CTX),
	RULE("twitch-api-token", "Twitch API token", "twitch",
	    KV("twitch", "[a-z0-9]{30}"), CTX),
	RULE("dropbox-api-token", "Dropbox access token", "sl.|dropbox",
	    B "(sl\\.[A-Za-z0-9_\\-]{130,1400})" E
	      "|" KV("dropbox", "[A-Za-z0-9_\\-]{64}"),
	    CTX, .after = 1500),
	RULE("spotify-client-secret", "Spotify client secret", "spotify",
	    KV("spotify", HEX(32)), CTXH),
	RULE("reddit-client-secret", "Reddit client secret", "reddit",
	    KV("reddit", "[A-Za-z0-9_\\-]{27,30}"), CTX),
	RULE("youtube-oauth-secret", "YouTube data API secret", "youtube",
	    KV("youtube", "[A-Za-z0-9_\\-]{24,40}"), CTX),
	RULE("mapbox-secret-token", "Mapbox secret access token", "sk.eyj",
	    B "(sk\\.eyJ[A-Za-z0-9_\\-]{40,200}\\.[A-Za-z0-9_\\-]{20,40})" E),
	RULE("zoom-client-secret", "Zoom client secret", "zoom",
	    KV("zoom", "[A-Za-z0-9]{32}"), CTX),
	RULE("okta-api-token", "Okta API token", "okta|ssws",
	    KV("okta|SSWS", "00[A-Za-z0-9_\\-]{40}"), CTX),
	RULE("auth0-client-secret", "Auth0 client secret", "auth0",
	    KV("auth0", "[A-Za-z0-9_\\-]{64}"), CTX),
	RULE("firebase-cloud-messaging-key", "Firebase Cloud Messaging key",
	    "aaaa",
	    B "(AAAA[A-Za-z0-9_\\-]{7}:APA91b[A-Za-z0-9_\\-]{130,150})" E,
	    .before = 4, .after = 200),
	RULE("algolia-admin-key", "Algolia admin API key", "algolia",
	    KV("algolia", HEX(32)), CTXH),
	RULE("contentful-token", "Contentful delivery / management token",
	    "cfpat-|contentful",
	    B "(CFPAT-[A-Za-z0-9_\\-]{43})" E
	      "|" KV("contentful", "[A-Za-z0-9_\\-]{43}"),
	    CTX),
	RULE("airtable-pat", "Airtable personal access token", "pat",
	    B "(pat[A-Za-z0-9]{14}\\." HEX(64) ")" EA, .before = 4),
	RULE("airtable-api-key", "Airtable legacy API key", "airtable",
	    KV("airtable", "key[A-Za-z0-9]{14}"), CTX),
	RULE("notion-token", "Notion integration token", "secret_|ntn_",
	    B "(secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})" EA,
	    .entropy = 3.5),
	RULE("linear-api-key", "Linear API key", "lin_api_",
	    B "(lin_api_[A-Za-z0-9]{40})" EA),
	RULE("asana-pat", "Asana personal access token", "asana",
	    KV("asana",
		"[0-9]/[0-9]{14,16}:" HEX(32) "|[0-9]/[0-9]{14,16}/"
					      "[0-9]{16}:" HEX(32)),
	    CTX),
	RULE("clickup-token", "ClickUp personal token", "pk_",
	    B "(pk_[0-9]{6,10}_[A-Z0-9]{32})" EA),
	RULE("monday-token", "monday.com API token", "monday",
	    KV("monday",
		"eyJ[A-Za-z0-9_\\-]{10,}\\.eyJ[A-Za-z0-9_\\-]{10,}\\."
		"[A-Za-z0-9_\\-]{10,}"),
	    CTX, .after = 600),
	RULE("trello-token", "Trello API token", "trello",
	    KV("trello", "[a-f0-9]{64}|ATTA[A-Za-z0-9]{60,70}"), CTXH),
	RULE("hubspot-token", "HubSpot private app token", "pat-na1-|pat-eu1-",
	    B "(pat-(?:na|eu)1-" UUID ")" EA),
	RULE("hubspot-api-key", "HubSpot legacy API key", "hubspot|hapikey",
	    KV("hubspot|hapikey", UUID), CTXU),
	RULE("typeform-token", "Typeform personal token", "tfp_",
	    B "(tfp_[A-Za-z0-9_\\-.=]{59})" E),
	RULE("figma-token", "Figma personal access token", "figd_",
	    B "(figd_[A-Za-z0-9_\\-]{40})" E),
	RULE("frameio-token", "Frame.io API token", "fio-u-",
	    B "(fio-u-[A-Za-z0-9_\\-=]{64})" E),
	RULE("postman-api-key", "Postman API key", "pmak-",
	    B "(PMAK-" HEX(24) "-" HEX(34) ")" EA),
	RULE("readme-api-key", "ReadMe API key", "rdme_",
	    B "(rdme_[a-z0-9]{70})" EA),
	RULE("launchdarkly-token", "LaunchDarkly access token", "api-",
	    B "(api-" UUID ")" EA "|" KV("launchdarkly", "(?:sdk|mob)-" UUID),
	    CTXU, .before = 4),
	RULE("rapidapi-key", "RapidAPI key", "rapidapi",
	    KV("rapidapi", "[A-Za-z0-9_\\-]{50}"), CTX),
	RULE("nytimes-api-key", "New York Times API key", "nytimes|nyt_",
	    KV("nytimes|nyt_", "[A-Za-z0-9]{32}"), CTX),
	RULE("etsy-api-key", "Etsy API key", "etsy", KV("etsy", "[a-z0-9]{24}"),
	    CTX),
	RULE("lob-api-key", "Lob API key", "live_|test_",
	    "(?i:lob)[A-Za-z_]{0,16}[\"']?\\s{0,4}[=:]\\s{0,4}[\"']?"
	    "((?:live|test)_[a-f0-9]{35})" EA,
	    .before = 40),
	RULE("yandex-api-key", "Yandex API key", "aqvn",
	    B "(AQVN[A-Za-z0-9_\\-]{35,38})" E),
	RULE("yandex-access-token", "Yandex OAuth token", "y0_|t1.",
	    B "(y[0-3]_[A-Za-z0-9_\\-]{55})" E),
	RULE("beamer-api-token", "Beamer API token", "b_",
	    "(?i:beamer)[A-Za-z_]{0,16}[\"']?\\s{0,4}[=:]\\s{0,4}[\"']?"
	    "(b_[A-Za-z0-9=_\\-]{44})" E,
	    .before = 40),

	/* ---- observability ---- */
	RULE("datadog-api-key", "Datadog API / application key",
	    "datadog|dd_api_key|dd_app_key|dd-api-key|dd-application-key",
	    KV("datadog|dd[_\\-]api[_\\-]?key|dd[_\\-]app(?:lication)?[_\\-]"
	       "key",
		HEX(40) "|" HEX(32)),
	    CTXH),
	RULE("newrelic-user-key", "New Relic user API key", "nrak-",
	    B "(NRAK-[A-Z0-9]{27})" EA),
	RULE("newrelic-insert-key", "New Relic insights insert key", "nrii-",
	    B "(NRII-[A-Za-z0-9_\\-]{32})" E),
	RULE("newrelic-browser-key", "New Relic browser API key", "nrjs-",
	    B "(NRJS-" HEX(19) ")" EA),
	RULE("newrelic-rest-key", "New Relic REST API key", "nrra-",
	    B "(NRRA-" HEX(42) ")" EA),
	RULE("newrelic-license-key", "New Relic ingest license key", "nral",
	    B "(" HEX(36) "NRAL)" EA, .before = 40),
	RULE("sentry-auth-token", "Sentry auth token", "sntrys_|sntryu_|sentry",
	    B "(sntrys_eyJ[A-Za-z0-9+/=_\\-]{60,300}|sntryu_" HEX(
		64) ")" E
		    "|" KV("sentry[A-Za-z_]{0,10}(?:auth|token)", HEX(64)),
	    CTXH, .after = 400),
	RULE("grafana-cloud-token", "Grafana Cloud API token", "glc_",
	    B "(glc_[A-Za-z0-9+/]{32,400}={0,2})", .after = 420),
	RULE("grafana-service-account-token", "Grafana service account token",
	    "glsa_", B "(glsa_[A-Za-z0-9]{32}_" UHEX(8) ")" EA),
	RULE("grafana-api-key", "Grafana legacy API key", "eyjrijoi",
	    B "(eyJrIjoi[A-Za-z0-9+/=]{60,100})", .after = 120),
	RULE("dynatrace-token", "Dynatrace API token", "dt0c01.|dt0s01.",
	    B "(dt0[cs]01\\.[A-Z0-9]{24}\\.[A-Z0-9]{64})" EA),
	RULE("honeycomb-api-key", "Honeycomb API key", "honeycomb|x-honeycomb",
	    KV("honeycomb",
		"[A-Za-z0-9]{22}|[A-Za-z0-9]{32}|hc[a-z]{2}_[A-Za-z0-9]{58}"),
	    CTX),
	RULE("pagerduty-token", "PagerDuty API token", "pagerduty",
	    KV("pagerduty", "[A-Za-z0-9_+\\-]{20}"), CTX),
	RULE("opsgenie-api-key", "Opsgenie API key", "opsgenie|genieke",
	    KV("opsgenie|GenieKey", UUID), CTXU),
	RULE("splunk-hec-token", "Splunk HEC token", "splunk",
	    KV("splunk", UUID), CTXU),
	RULE("sumologic-access-key", "Sumo Logic access key", "sumo",
	    KV("sumo", "[A-Za-z0-9]{64}"), CTX),
	RULE("logzio-token", "Logz.io token", "logz",
	    KV("logz", "[A-Za-z]{32}"), CTX),
	RULE("rollbar-token", "Rollbar access token", "rollbar",
	    KV("rollbar", HEX(32)), CTXH),
	RULE("bugsnag-api-key", "Bugsnag API key", "bugsnag",
	    KV("bugsnag", HEX(32)), CTXH),
	RULE("loggly-token", "Loggly customer token", "loggly",
	    KV("loggly", UUID), CTXU),

	/* ---- package registries ---- */
	RULE("npm-access-token", "npm access token", "npm_",
	    B "(npm_[A-Za-z0-9]{36})" EA, .entropy = 3.5),
	RULE("npmrc-auth-token", "npm registry auth in .npmrc",
	    "_authtoken|_auth=|_password=",
	    "(?:_authToken|_auth|_password)\\s*=\\s*[\"']?([A-Za-z0-9+/"
	    "=_.\\-]{16,200})",
	    .flags = LEAK_RF_VALUE | LEAK_RF_UUID_OK | LEAK_RF_HEX_OK),
	RULE("pypi-upload-token", "PyPI upload token",
	    "pypi-ageichlwas5vcmc|pypi-agendgvzdc5wexbplm9yzw",
	    B "(pypi-Ag(?:EIcHlwaS5vcmc|ENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\\-]{"
	      "50,300})" E,
	    .after = 320),
	RULE("rubygems-api-key", "RubyGems API key", "rubygems_",
	    B "(rubygems_" HEX(48) ")" EA),
	RULE("nuget-api-key", "NuGet API key", "\\boy2",
	    B "(oy2[a-z0-9]{43})" EA, .entropy = 3.5),
	RULE("dockerhub-pat", "Docker Hub access token", "dckr_pat_|dckr_oat_",
	    B "(dckr_(?:pat|oat)_[A-Za-z0-9_\\-]{27,32})" E),
	RULE("crates-io-token", "crates.io API token", "\\bcio",
	    B "(cio[A-Za-z0-9]{32})" EA, .entropy = 4.0),
	RULE("clojars-token", "Clojars deploy token", "clojars_",
	    B "(CLOJARS_[a-z0-9]{60})" EA),
	RULE("jfrog-api-key", "JFrog Artifactory API key", "akcp",
	    B "(AKCp[A-Za-z0-9]{69})" EA),
	RULE("jfrog-identity-token", "JFrog identity / reference token",
	    "cmvmdgtu", B "(cmVmdGtu[A-Za-z0-9]{56})" EA),
	RULE("hex-pm-key", "Hex.pm API key", "hex_api_key|hexpm",
	    KV("hex_?api_?key|hexpm", HEX(32)), CTXH),
	RULE("packagist-token", "Packagist API token", "packagist",
	    KV("packagist", "[A-Za-z0-9]{20,64}"), CTX),
	RULE("gradle-publish-key", "Gradle plugin portal secret",
	    "gradle.publish.secret|gradle_publish_secret",
	    KV("gradle[._]publish[._]secret", "[A-Za-z0-9]{32}"), CTX),
	RULE("sonatype-password", "Sonatype / Maven Central token password",
	    "sonatype|ossrh", KV("sonatype|ossrh", "[A-Za-z0-9+/=_\\-]{20,64}"),
	    .flags = LEAK_RF_VALUE | LEAK_RF_PASSWORD),
	RULE("anaconda-token", "Anaconda.org token", "anaconda",
	    KV("anaconda", "[A-Za-z0-9\\-]{30,40}"), CTX),

	/* ---- private keys ---- */
	RULE("private-key", "PEM private key", "private key-----",
	    "(-----BEGIN ((?:RSA |EC |DSA |ENCRYPTED |OPENSSH |SSH2 ENCRYPTED "
	    ")?"
	    "PRIVATE KEY)-----[\\s\\S]{40,12000}?-----END \\2-----"
	    "|-----BEGIN (?:RSA |EC |DSA |ENCRYPTED )?PRIVATE KEY-----"
	    "(?:\\s|\\\\n|\\\\r)*(?:[A-Za-z0-9+/"
	    "=:,\\-]{16,}(?:\\s|\\\\n|\\\\r)+)?"
	    "[A-Za-z0-9+/=]{40,})",
	    .flags = LEAK_RF_NOALLOW, .before = 32, .after = 12100),
	RULE("openssh-private-key", "OpenSSH private key (bare base64)",
	    "b3blbnnzac1rzxktdjeaaaaa",
	    "(b3BlbnNzaC1rZXktdjEAAAAA[A-Za-z0-9+/=\\s]{60,})",
	    .flags = LEAK_RF_NOALLOW, .after = 600),
	RULE("pgp-private-key", "PGP private key block",
	    "pgp private key block-----",
	    "(-----BEGIN PGP PRIVATE KEY BLOCK-----[\\s\\S]{40,12000}?"
	    "(?:-----END PGP PRIVATE KEY BLOCK-----|$))",
	    .flags = LEAK_RF_NOALLOW, .before = 12, .after = 12100),
	RULE("putty-private-key", "PuTTY private key file",
	    "putty-user-key-file-",
	    "(PuTTY-User-Key-File-\\d: [a-z0-9\\-]+[\\s\\S]{20,8000}?"
	    "Private-Lines: \\d+(?:\\s|\\\\r|\\\\n)+[A-Za-z0-9+/=]{40,})",
	    .flags = LEAK_RF_NOALLOW, .after = 8200),
	RULE("age-secret-key", "age encryption secret key", "age-secret-key-1",
	    "(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})"),
	RULE("ssh-private-key-pkcs8-b64", "Base64 PKCS#8 private key body",
	    "miievgibadanbgkqhkig9w0baqefaascb|"
	    "miievaibadanbgkqhkig9w0baqefaascb|"
	    "migtageaebmbmgbyqgsm49agegcccqgsm49",
	    B "((?:MIIEvgIBADANBgkqhkiG9w0BAQEFAASCB|"
	      "MIIEvAIBADANBgkqhkiG9w0BAQEFAASCB|"
	      "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49)[A-Za-z0-9+/=]{60,2400})",
	    .after = 2500),

	/* ---- tokens with structure ---- */
	RULE("jwt", "JSON Web Token", "eyj",
	    B "(eyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\."
	      "[A-Za-z0-9_\\-]{0,1400})" E,
	    .validator = LEAK_V_JWT, .before = 4, .after = 4000,
	    .flags = LEAK_RF_NOALLOW),

	/* ---- credentials in URLs and connection strings ---- */
	RULE("database-url-password", "Password in a database URL", "://",
	    "(?i:(?:postgres(?:ql)?|pgsql|mysql(?:x)?|mariadb|mongodb(?:\\+srv)"
	    "?|"
	    "redis|rediss|valkey|amqps?|mssql|sqlserver|oracle|cockroachdb|"
	    "clickhouse|neo4j(?:\\+s)?|bolt|couchdb|cassandra|memcached|"
	    "elasticsearch|opensearch|influxdb|db2|snowflake|jdbc:[a-z0-9]+|"
	    "mongo|nats|kafka|"
	    "rabbitmq|sqlalchemy|postgresql\\+[a-z0-9]+|mysql\\+[a-z0-9]"
	    "+)"
	    ")://[^:/\\s@\"'<>]{0,128}:([^@/"
	    "\\s\"'<>]{1,256})@[A-Za-z0-9.\\-_\\[]",
	    .validator = LEAK_V_URL_PASSWORD, .before = 40),
	RULE("url-userinfo-password", "Password in URL userinfo", "://",
	    "(?i:[a-z][a-z0-9+.\\-]{1,20})://[^:/\\s@\"'<>]{1,128}:"
	    "([^@/\\s\"'<>]{1,256})@[A-Za-z0-9.\\-_\\[]",
	    .validator = LEAK_V_URL_PASSWORD, .before = 24),
	RULE("connection-string-password", "Password in a connection string",
	    "password=|pwd=",
	    "(?i:(?:Server|Data Source|Host|Address|Addr|Network Address|"
	    "AccountName|User ID|UID|Username|Database|Initial Catalog)\\s*=)"
	    "[^\\n\"']{0,200}?(?i:\\b(?:Password|Pwd)\\s*=\\s*)"
	    "('[^']{1,128}'|\\{[^}]{1,128}\\}|[^;\\s\"']{1,128})",
	    .validator = LEAK_V_URL_PASSWORD, .before = 240, .after = 140),
	RULE("http-basic-auth", "HTTP Basic credentials", "basic",
	    "(?i:\\bbasic)\\s+([A-Za-z0-9+/]{6,400}={0,2})(?![A-Za-z0-9+/=])",
	    .validator = LEAK_V_BASIC_AUTH, .before = 2, .after = 420),
	RULE("http-bearer-token", "HTTP Bearer token", "bearer",
	    "(?i:\\bbearer)\\s+([A-Za-z0-9_\\-.~+/]{16,2048}=*)"
	    "(?![A-Za-z0-9_\\-.~+/=])",
	    .entropy = 3.0,
	    .flags = LEAK_RF_VALUE | LEAK_RF_GENERIC | LEAK_RF_HEX_OK |
		LEAK_RF_UUID_OK,
	    .before = 2, .after = 2100),
	RULE("http-token-auth", "HTTP Authorization token header",
	    "authorization",
	    "(?i:\\b(?:proxy-)?authorization\\s*[:=]\\s*[\"']?"
	    "(?:token|bot|apikey|api-key|key|sso-key|ssws|digest|dsn|otoken)"
	    "\\s+)"
	    "([A-Za-z0-9_\\-.~+/:=]{16,512})",
	    .entropy = 3.0,
	    .flags = LEAK_RF_VALUE | LEAK_RF_GENERIC | LEAK_RF_HEX_OK |
		LEAK_RF_UUID_OK),
	RULE("http-api-key-header", "API key in an HTTP header",
	    "api-key|apikey|auth-token|access-token|private-token|"
	    "subscription-key|x-token|-key:",
	    "(?i:\\b(?:x-)?(?:[a-z0-9]+-){0,3}(?:api-?key|apikey|auth-token|"
	    "access-token|private-token|subscription-key|token|secret|key)"
	    "\\s*:\\s*)([A-Za-z0-9_\\-.~+/=:]{12,512})(?![A-Za-z0-9_\\-.~+/=])",
	    .entropy = 3.2,
	    .flags = LEAK_RF_VALUE | LEAK_RF_GENERIC | LEAK_RF_HEX_OK |
		LEAK_RF_UUID_OK,
	    .before = 64),

	/* ---- generic assignments, gated by shape and entropy ----
	 * These are tried only where the keyword starts (LEAK_RF_ANCHOR); the
	 * whole identifier around the keyword is checked for names that hold
	 * no secret (hashes, ids, lengths, public keys). */
	RULE("generic-password", "Password assigned in config or code",
	    "pass|pwd|pword",
	    "(?i:(?:password|passwd|passphrase|passcode|pass|pwd|pword)"
	    "[A-Za-z0-9_.\\-]{0,20})"
	    "[\"'`]?\\]?\\s{0,4}(?:=|:=|=>|:|->|>|\\s+is\\s+|\\s+(?=[\"']))"
	    "\\s{0,4}[\"'`]?([^\\s\"'`&;,<>()\\[\\]{}]{6,128})",
	    .entropy = 2.4,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_PASSWORD |
		LEAK_RF_HEX_OK | LEAK_RF_ANCHOR),
	RULE("generic-secret", "Secret assigned in config or code",
	    "secret|private|credential|signing|encryption|master",
	    "(?i:(?:secret|private[_.\\-]?key|credentials?|signing[_.\\-]?key|"
	    "encryption[_.\\-]?key|master[_.\\-]?key)[A-Za-z0-9_.\\-]{0,20})"
	    "[\"'`]?\\]?\\s{0,4}(?:=|:=|=>|:|->|\\s+(?=[\"']))"
	    "\\s{0,4}[\"'`]?([^\\s\"'`&;,<>()\\[\\]{}]{8,256})",
	    .entropy = 3.0,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_ANCHOR),
	RULE("generic-token", "Token assigned in config or code", "token",
	    "(?i:token[A-Za-z0-9_.\\-]{0,20})"
	    "[\"'`]?\\]?\\s{0,4}(?:=|:=|=>|:|->|\\s+(?=[\"']))"
	    "\\s{0,4}[\"'`]?([^\\s\"'`&;,<>()\\[\\]{}]{12,512})",
	    .entropy = 3.2,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_ANCHOR),
	RULE("generic-api-key", "API key assigned in config or code",
	    "key|auth|api_secret|apisecret|api-secret",
	    "(?i:(?:key|auth|api[_.\\-]?secret)[A-Za-z0-9_.\\-]{0,20})"
	    "[\"'`]?\\]?\\s{0,4}(?:=|:=|=>|:|->|\\s+(?=[\"']))"
	    "\\s{0,4}[\"'`]?([^\\s\"'`&;,<>()\\[\\]{}]{12,512})",
	    .entropy = 3.3,
	    .flags = LEAK_RF_GENERIC | LEAK_RF_VALUE | LEAK_RF_HEX_OK |
		LEAK_RF_ANCHOR),
};

const size_t leak_builtin_rules_count = AXG_ARRAY_LEN(leak_builtin_rules);
