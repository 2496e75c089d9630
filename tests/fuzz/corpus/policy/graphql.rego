package x

schema := `
type Query { hero(episode: Episode = NEWHOPE): Character search(text: String!): [Result] }
enum Episode { NEWHOPE EMPIRE JEDI }
interface Character { id: ID! name: String friends: [Character] }
type Human implements Character { id: ID! name: String friends: [Character] height(unit: Unit = METER): Float }
type Droid implements Character { id: ID! name: String friends: [Character] primaryFunction: String }
union Result = Human | Droid
enum Unit { METER FOOT }
input Filter { name: String! tags: [String!] = [] }
directive @cached(ttl: Int = 60) repeatable on FIELD | QUERY
extend type Query { filtered(f: Filter): [Character] @deprecated(reason: "use search") }
`

query := `
query Hero($ep: Episode = JEDI, $withFriends: Boolean!) @cached(ttl: 5) {
  hero(episode: $ep) { name ...Names friends @include(if: $withFriends) { id } }
  search(text: "an") { __typename ... on Human { height(unit: FOOT) } ... on Droid { primaryFunction } }
  filtered(f: {name: "x", tags: ["a", """b"""]}) { id }
}
fragment Names on Character { id name }
`

parsed := graphql.parse(query, schema)
checked := graphql.parse_and_verify(graphql.parse_query(query), graphql.parse_schema(schema))
valid := graphql.is_valid(query, schema)
schema_ok := graphql.schema_is_valid(schema)
