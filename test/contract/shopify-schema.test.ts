// Every GraphQL document the bridge sends to Shopify, held to Shopify's own
// published Admin schema of the configured API version (from
// @shopify/dev-mcp, see test/helpers/shopify-schema.ts): valid, and selecting
// nothing that version deprecates. And the fake Shopify, which executes on
// the same schema, refuses what the real API would.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getNamedType, parse, TypeInfo, validate, visit, visitWithTypeInfo, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkOrdersQuery } from '../../adapters/shopify/graphql-orders.ts';
import { startFakeShopify, type FakeShopify } from '../helpers/fake-shopify.ts';
import { shopifyAdminSchema } from '../helpers/shopify-schema.ts';

const ADAPTER = resolve(import.meta.dirname, '../../adapters/shopify');
/** The version the bridge calls unless told otherwise (config/default.json). */
const VERSION = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../config/default.json'), 'utf8')) as {
    SHOPIFY_API_VERSION: string;
  }
).SHOPIFY_API_VERSION;

/** The documents the Shopify adapter exports (constants and the bulk query builder). */
async function bridgeDocuments(): Promise<Map<string, string>> {
  const documents = new Map<string, string>();
  for (const file of readdirSync(ADAPTER).filter((name) => name.endsWith('.ts'))) {
    const module = (await import(join(ADAPTER, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'string' && /^\s*(query|mutation)\b/.test(value)) documents.set(`${file}:${name}`, value);
    }
  }
  documents.set('graphql-orders.ts:bulkOrdersQuery', bulkOrdersQuery("updated_at:>='2026-01-01T00:00:00.000Z'", false));
  documents.set(
    'graphql-orders.ts:bulkOrdersQuery(customer)',
    bulkOrdersQuery("updated_at:>='2026-01-01T00:00:00.000Z'", true),
  );
  return documents;
}

/** Every deprecated field, argument or enum value a document uses. */
function deprecatedUses(document: DocumentNode): string[] {
  const schema = shopifyAdminSchema(VERSION);
  const info = new TypeInfo(schema);
  const found: string[] = [];
  visit(
    document,
    visitWithTypeInfo(info, {
      Field() {
        const field = info.getFieldDef();
        if (field?.deprecationReason)
          found.push(
            `${getNamedType(info.getParentType() ?? undefined)?.name}.${field.name}: ${field.deprecationReason}`,
          );
      },
      Argument() {
        const argument = info.getArgument();
        if (argument?.deprecationReason) found.push(`argument ${argument.name}: ${argument.deprecationReason}`);
      },
      EnumValue() {
        const value = info.getEnumValue();
        if (value?.deprecationReason) found.push(`enum value ${value.name}: ${value.deprecationReason}`);
      },
    }),
  );
  return found;
}

describe(`the bridge's GraphQL documents against Shopify's Admin schema ${VERSION}`, () => {
  it('finds every named operation in the adapter among the documents it checks', async () => {
    const documents = await bridgeDocuments();
    const checked = new Set(
      [...documents.values()].map((text) => /(?:query|mutation)\s+(\w+)/.exec(text)?.[1]).filter(Boolean),
    );
    const named = new Set<string>();
    for (const file of readdirSync(ADAPTER).filter((name) => name.endsWith('.ts'))) {
      for (const match of readFileSync(join(ADAPTER, file), 'utf8').matchAll(
        /`(?:query|mutation)\s+(LoyaltyBridge\w+)/g,
      ))
        named.add(match[1] ?? '');
    }
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((name) => !checked.has(name))).toEqual([]);
  });

  it('validates each one', async () => {
    const schema = shopifyAdminSchema(VERSION);
    const problems: string[] = [];
    for (const [name, text] of await bridgeDocuments()) {
      for (const error of validate(schema, parse(text))) problems.push(`${name}: ${error.message}`);
    }
    expect(problems).toEqual([]);
  });

  it('selects nothing that version deprecates', async () => {
    const problems: string[] = [];
    for (const [name, text] of await bridgeDocuments())
      problems.push(...deprecatedUses(parse(text)).map((use) => `${name}: ${use}`));
    expect(problems).toEqual([]);
  });

  it('would notice a deprecated field (Customer.email) and a field the API lacks', () => {
    const schema = shopifyAdminSchema(VERSION);
    expect(deprecatedUses(parse('query { order(id: "gid://shopify/Order/1") { customer { email } } }'))).toEqual([
      expect.stringMatching(/^Customer\.email/),
    ]);
    expect(
      validate(schema, parse('query { order(id: "gid://shopify/Order/1") { loyaltyPoints } }')).map(
        (error) => error.message,
      ),
    ).toEqual([expect.stringMatching(/Cannot query field "loyaltyPoints"/)]);
  });
});

describe('the fake Shopify executes on the same schema', () => {
  let fake: FakeShopify;
  beforeAll(async () => {
    fake = await startFakeShopify({ apiKey: 'client-id', apiSecret: 'secret' });
    fake.registerToken('shpat_schema_test', 'schema-store.myshopify.com');
  });
  afterAll(() => fake.close());
  const ask = async (query: string) =>
    (await (
      await fetch(`${fake.adminUrl('schema-store.myshopify.com')}/admin/api/${VERSION}/graphql.json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shopify-access-token': 'shpat_schema_test' },
        body: JSON.stringify({ query }),
      })
    ).json()) as { data?: unknown; errors?: Array<{ message: string }> };

  it('refuses a field the real API lacks, as Shopify does', async () => {
    const answer = await ask('query { shop { loyaltyPoints } }');
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.[0]?.message).toMatch(/Cannot query field "loyaltyPoints" on type "Shop"/);
  });

  it('answers in the schema’s shapes: enum values and non-null fields are checked on the way out', async () => {
    fake.shop('schema-store.myshopify.com').subscriptions = [
      {
        id: 'gid://shopify/WebhookSubscription/1',
        topic: 'NOT_A_TOPIC',
        uri: 'https://example.com',
        apiVersion: VERSION,
      },
    ];
    const answer = await ask('query { webhookSubscriptions(first: 5) { nodes { id topic uri } } }');
    expect(answer.errors?.[0]?.message).toMatch(/Enum "WebhookSubscriptionTopic" cannot represent value/);
    fake.shop('schema-store.myshopify.com').subscriptions = [];
  });
});
