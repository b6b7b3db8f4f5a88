#include "perturb/lexicon.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "perturb/memo.hpp"
#include "perturb/word_table.hpp"
#include "text/wordnet.hpp"

namespace probity::perturb::lex {
namespace {

using Set = WordSet;

// Word -> word; the first of repeated keys stays (as in std::unordered_map's list constructor).
class Map : public WordTable<std::string> {
 public:
  Map() = default;
  Map(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs) {
    for (auto [key, value] : pairs) emplace(key, std::string(value));
  }
};

Set make_set(std::initializer_list<std::string_view> words) {
  return Set(words);
}

bool contains(const Set& set, std::string_view word) {
  return set.contains(word);
}

std::string lookup(const Map& map, std::string_view word) {
  const std::string* value = map.find(word);
  return value == nullptr ? std::string() : *value;
}

// ---- closed classes ----------------------------------------------------------------------------

const Set& determiners() {
  static const Set set =
      make_set({"a",     "an",  "the", "this", "that",  "these", "those", "his", "her", "its",
                "their", "our", "my",  "your", "every", "each",  "some",  "any", "no",  "another"});
  return set;
}

const Set& prepositions() {
  static const Set set =
      make_set({"in",      "on",     "at",      "after",   "before",  "with",    "from",   "for",
                "of",      "to",     "by",      "during",  "since",   "near",    "over",   "under",
                "into",    "about",  "against", "between", "through", "without", "across", "along",
                "around",  "behind", "beyond",  "despite", "toward",  "towards", "upon",   "within",
                "outside", "inside", "amid",    "among",   "off",     "onto",    "via",    "per"});
  return set;
}

const Set& copulas() {
  static const Set set =
      make_set({"is",       "are",   "was",    "were",    "be",     "been",     "being",   "am",
                "seems",    "seem",  "seemed", "appears", "appear", "appeared", "remains", "remain",
                "remained", "looks", "look",   "looked",  "'s",     "'re"});
  return set;
}

const Set& modals() {
  static const Set set = make_set(
      {"would", "will", "can", "could", "should", "must", "might", "may", "shall", "wo", "ca"});
  return set;
}

const Set& subject_pronouns() {
  static const Set set = make_set({"i", "you", "he", "she", "it", "we", "they"});
  return set;
}

const Set& function_words() {
  static const Set set = [] {
    Set s = make_set(
        {"and",        "or",      "but",      "nor",      "so",        "yet",    "if",
         "then",       "than",    "because",  "although", "though",    "while",  "whereas",
         "when",       "where",   "which",    "who",      "whom",      "whose",  "that",
         "what",       "whether", "as",       "i",        "me",        "you",    "he",
         "him",        "she",     "her",      "it",       "we",        "us",     "they",
         "them",       "myself",  "yourself", "himself",  "herself",   "itself", "ourselves",
         "themselves", "mine",    "yours",    "hers",     "ours",      "theirs", "is",
         "are",        "was",     "were",     "be",       "been",      "being",  "am",
         "do",         "does",    "did",      "done",     "doing",     "have",   "has",
         "had",        "having",  "not",      "n't",      "no",        "never",  "very",
         "also",       "just",    "only",     "even",     "still",     "too",    "so",
         "there",      "here",    "now",      "how",      "why",       "all",    "both",
         "either",     "neither", "such",     "own",      "same",      "other",  "more",
         "most",       "much",    "many",     "few",      "less",      "least",  "one",
         "'s",         "'re",     "'ve",      "'ll",      "'d",        "'m",     "again",
         "further",    "once",    "however",  "thus",     "therefore", "hence",  "indeed",
         "out",        "up",      "down",     "away",     "back",      "until",  "unless",
         "whilst",     "upon",    "ever",     "already",  "yes",       "okay",   "ok",
         "oh",         "well",    "let",      "get",      "got",       "whom",   "whose"});
    for (const auto* other : {&determiners(), &prepositions(), &modals()}) s.insert_all(*other);
    return s;
  }();
  return set;
}

// ---- WordNet -----------------------------------------------------------------------------------

namespace wn = text::wordnet;

constexpr wn::Pos kWordNetPos[] = {wn::Pos::kNoun, wn::Pos::kVerb, wn::Pos::kAdj, wn::Pos::kAdv};

// Unlike the mechanisms, which record "wordnet:none" in their signatures, the perturbations have
// no record of the database: without it they would quietly write different texts (no WordNet
// synonyms, antonyms or word classes), so every WordNet question fails instead.
void require_wordnet() {
  if (!wn::available())
    throw std::runtime_error(
        "WordNet 3.0 data not found (install wordnet-base or set WNSEARCHDIR)");
}

wn::Pos wn_pos(Pos pos) {
  switch (pos) {
    case Pos::kNoun:
      return wn::Pos::kNoun;
    case Pos::kVerb:
      return wn::Pos::kVerb;
    case Pos::kAdj:
      return wn::Pos::kAdj;
    case Pos::kAdv:
      return wn::Pos::kAdv;
  }
  return wn::Pos::kNoun;
}

// Rank (1-based) of the synset at `offset` among the senses of `lemma`, and its SemCor count.
std::pair<int, int> sense_rank(const std::string& lemma, wn::Pos p, std::uint32_t offset) {
  const auto& senses = wn::senses(lemma, p);
  for (std::size_t k = 0; k < senses.size(); ++k)
    if (senses[k] == offset) return {int(k) + 1, wn::tag_count(lemma, p, int(k) + 1)};
  return {0, 0};
}

bool plain_lower_word(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
}

// ---- simple English morphology -----------------------------------------------------------------

bool is_vowel(char c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

std::string third_person(const std::string& base) {
  if (base.ends_with("s") || base.ends_with("x") || base.ends_with("z") || base.ends_with("ch") ||
      base.ends_with("sh") || base.ends_with("o"))
    return base + "es";
  if (base.size() > 1 && base.back() == 'y' && !is_vowel(base[base.size() - 2]))
    return base.substr(0, base.size() - 1) + "ies";
  return base + "s";
}

std::string past_regular(const std::string& base) {
  if (base.ends_with("e")) return base + "d";
  if (base.size() > 1 && base.back() == 'y' && !is_vowel(base[base.size() - 2]))
    return base.substr(0, base.size() - 1) + "ied";
  return base + "ed";
}

std::string gerund_regular(const std::string& base) {
  if (base.ends_with("ie")) return base.substr(0, base.size() - 2) + "ying";
  if (base.size() > 2 && base.ends_with("e") && !base.ends_with("ee"))
    return base.substr(0, base.size() - 1) + "ing";
  return base + "ing";
}

std::string plural_regular(const std::string& base) {
  if (base.ends_with("s") || base.ends_with("x") || base.ends_with("z") || base.ends_with("ch") ||
      base.ends_with("sh"))
    return base + "es";
  if (base.size() > 1 && base.back() == 'y' && !is_vowel(base[base.size() - 2]))
    return base.substr(0, base.size() - 1) + "ies";
  return base + "s";
}

// ---- opinion flip ------------------------------------------------------------------------------

// Symmetric antonym pairs: each side maps to the other.
constexpr std::pair<std::string_view, std::string_view> kAntonymPairs[] = {
    {"good", "bad"},
    {"better", "worse"},
    {"best", "worst"},
    {"excellent", "poor"},
    {"strong", "weak"},
    {"stronger", "weaker"},
    {"strongest", "weakest"},
    {"strength", "weakness"},
    {"strengths", "weaknesses"},
    {"clear", "unclear"},
    {"convincing", "unconvincing"},
    {"convincingly", "unconvincingly"},
    {"interesting", "uninteresting"},
    {"original", "unoriginal"},
    {"useful", "useless"},
    {"helpful", "unhelpful"},
    {"important", "unimportant"},
    {"significant", "insignificant"},
    {"relevant", "irrelevant"},
    {"effective", "ineffective"},
    {"effectively", "ineffectively"},
    {"efficient", "inefficient"},
    {"impressive", "unimpressive"},
    {"correct", "incorrect"},
    {"correctly", "incorrectly"},
    {"accurate", "inaccurate"},
    {"consistent", "inconsistent"},
    {"coherent", "incoherent"},
    {"adequate", "inadequate"},
    {"adequately", "inadequately"},
    {"sufficient", "insufficient"},
    {"sufficiently", "insufficiently"},
    {"appropriate", "inappropriate"},
    {"reasonable", "unreasonable"},
    {"reliable", "unreliable"},
    {"successful", "unsuccessful"},
    {"successfully", "unsuccessfully"},
    {"success", "failure"},
    {"successes", "failures"},
    {"succeed", "fail"},
    {"succeeds", "fails"},
    {"succeeded", "failed"},
    {"succeeding", "failing"},
    {"win", "lose"},
    {"wins", "loses"},
    {"won", "lost"},
    {"winning", "losing"},
    {"winner", "loser"},
    {"winners", "losers"},
    {"victory", "defeat"},
    {"victories", "defeats"},
    {"happy", "unhappy"},
    {"happily", "unhappily"},
    {"pleased", "displeased"},
    {"satisfied", "dissatisfied"},
    {"satisfying", "unsatisfying"},
    {"love", "hate"},
    {"loves", "hates"},
    {"loved", "hated"},
    {"loving", "hating"},
    {"like", "dislike"},
    {"likes", "dislikes"},
    {"liked", "disliked"},
    {"agree", "disagree"},
    {"agrees", "disagrees"},
    {"agreed", "disagreed"},
    {"approve", "disapprove"},
    {"approves", "disapproves"},
    {"approved", "disapproved"},
    {"approval", "disapproval"},
    {"praise", "criticize"},
    {"praises", "criticizes"},
    {"praised", "criticized"},
    {"praising", "criticizing"},
    {"advantage", "disadvantage"},
    {"advantages", "disadvantages"},
    {"pros", "cons"},
    {"merit", "flaw"},
    {"merits", "flaws"},
    {"beautiful", "ugly"},
    {"pleasant", "unpleasant"},
    {"fortunate", "unfortunate"},
    {"fortunately", "unfortunately"},
    {"luckily", "unluckily"},
    {"lucky", "unlucky"},
    {"safe", "unsafe"},
    {"safely", "unsafely"},
    {"honest", "dishonest"},
    {"fair", "unfair"},
    {"friendly", "unfriendly"},
    {"wise", "unwise"},
    {"popular", "unpopular"},
    {"flawless", "flawed"},
    {"wonderful", "awful"},
    {"great", "terrible"},
    {"favorable", "unfavorable"},
    {"favourable", "unfavourable"},
    {"optimistic", "pessimistic"},
    {"promising", "unpromising"},
    {"accept", "reject"},
    {"accepts", "rejects"},
    {"accepted", "rejected"},
    {"accepting", "rejecting"},
    {"acceptance", "rejection"},
    {"acceptable", "unacceptable"},
    {"positive", "negative"},
    {"positively", "negatively"},
    {"positives", "negatives"},
    {"guilty", "innocent"},
    {"improve", "worsen"},
    {"improves", "worsens"},
    {"improved", "worsened"},
    {"improving", "worsening"},
    {"improvement", "deterioration"},
    {"improvements", "deteriorations"},
    {"robust", "fragile"},
    {"meaningful", "meaningless"},
    {"insightful", "superficial"},
    {"rigorous", "sloppy"},
    {"rigorously", "sloppily"},
    {"elegant", "clumsy"},
    {"exciting", "dull"},
    {"encouraging", "discouraging"},
    {"encouraged", "discouraged"},
    {"easy", "difficult"},
    {"easier", "harder"},
    {"easiest", "hardest"},
    {"readable", "unreadable"},
    {"valuable", "worthless"},
    {"well-written", "poorly-written"},
    {"well-motivated", "poorly-motivated"},
    {"well-organized", "poorly-organized"},
    {"well-designed", "poorly-designed"},
    {"well-executed", "poorly-executed"},
    {"well-structured", "poorly-structured"},
    {"well-founded", "unfounded"},
    {"competent", "incompetent"},
    {"responsible", "irresponsible"},
    {"legitimate", "illegitimate"},
    {"careful", "careless"},
    {"carefully", "carelessly"},
};

// One-way replacements (the reverse direction is covered by another entry).
constexpr std::pair<std::string_view, std::string_view> kAntonymOneWay[] = {
    {"novel", "unoriginal"},
    {"innovative", "unoriginal"},
    {"creative", "uninspired"},
    {"horrible", "wonderful"},
    {"fantastic", "awful"},
    {"amazing", "unremarkable"},
    {"brilliant", "mediocre"},
    {"outstanding", "mediocre"},
    {"mediocre", "outstanding"},
    {"superb", "poor"},
    {"solid", "weak"},
    {"badly", "well"},
    {"well", "poorly"},
    {"poorly", "well"},
    {"nice", "unpleasant"},
    {"boring", "interesting"},
    {"confusing", "clear"},
    {"wrong", "right"},
    {"sad", "happy"},
    {"enjoy", "dislike"},
    {"enjoys", "dislikes"},
    {"enjoyed", "disliked"},
    {"drawback", "benefit"},
    {"drawbacks", "benefits"},
    {"limitation", "strength"},
    {"limitations", "strengths"},
    {"shortcoming", "strength"},
    {"shortcomings", "strengths"},
    {"thorough", "superficial"},
    {"dangerous", "safe"},
    {"disappointing", "impressive"},
    {"disappointed", "pleased"},
    {"compelling", "unconvincing"},
    {"excited", "disappointed"},
    {"thrilled", "disappointed"},
    {"perfect", "flawed"},
    {"awesome", "awful"},
    {"problematic", "sound"},
    {"questionable", "sound"},
    {"badly-written", "well-written"},
    {"ill-posed", "well-posed"},
    {"cons", "pros"},
    {"worthwhile", "pointless"},
};

// Evaluative adjectives whose flip is left to WordNet's direct antonym.
const Set& wordnet_evaluatives() {
  static const Set set =
      make_set({"comfortable", "convenient",     "polite",    "stable",    "valid",     "mature",
                "rational",    "logical",        "practical", "realistic", "loyal",     "ethical",
                "moral",       "healthy",        "kind",      "generous",  "sensible",  "tolerant",
                "patient",     "modest",         "decent",    "pure",      "grateful",  "faithful",
                "attractive",  "comprehensible", "tidy",      "wholesome", "desirable", "fortunate",
                "sane"});
  return set;
}

const Map& antonym_map() {
  static const Map map = [] {
    Map m;
    for (auto [a, b] : kAntonymPairs) {
      m.emplace(a, std::string(b));
      m.emplace(b, std::string(a));
    }
    for (auto [a, b] : kAntonymOneWay) m.insert_or_assign(a, std::string(b));
    return m;
  }();
  return map;
}

const Set& negatable_evaluatives() {
  static const Set set = make_set(
      {"groundbreaking", "exceptional",   "remarkable", "commendable", "admirable", "noteworthy",
       "laudable",       "praiseworthy",  "shocking",   "deplorable",  "troubling", "worrying",
       "alarming",       "controversial", "concerning", "persuasive",  "exemplary", "illuminating",
       "inspiring",      "disturbing",    "misleading"});
  return set;
}

// ---- shifts ------------------------------------------------------------------------------------

using Words = std::vector<std::string_view>;

// The list of `tone` among the four.
const Words& by_tone(Tone tone, const Words& positive, const Words& negative, const Words& hedged,
                     const Words& strong) {
  switch (tone) {
    case Tone::kPositive:
      return positive;
    case Tone::kNegative:
      return negative;
    case Tone::kHedged:
      return hedged;
    case Tone::kStrong:
      return strong;
  }
  return positive;
}

const Map& hedge_verbs() {
  static const Map map = {{"is", "may be"},
                          {"are", "may be"},
                          {"was", "may have been"},
                          {"were", "may have been"},
                          {"will", "may"},
                          {"can", "might"},
                          {"shows", "seems to show"},
                          {"show", "seem to show"},
                          {"showed", "appeared to show"},
                          {"proves", "suggests"},
                          {"proved", "seemed to show"},
                          {"demonstrates", "suggests"},
                          {"demonstrated", "suggested"},
                          {"confirms", "appears to confirm"},
                          {"confirmed", "appeared to confirm"},
                          {"reveals", "seems to reveal"},
                          {"revealed", "seemed to reveal"}};
  return map;
}

const Map& softenings() {
  static const Map map = {
      {"clearly", "possibly"},
      {"certainly", "probably"},
      {"definitely", "probably"},
      {"undoubtedly", "probably"},
      {"always", "often"},
      {"never", "rarely"},
      {"must", "may"},
      {"very", "somewhat"},
      {"extremely", "fairly"},
      {"highly", "fairly"},
      {"completely", "largely"},
      {"entirely", "largely"},
      {"totally", "largely"},
      {"obviously", "apparently"},
      {"strongly", "somewhat"},
      {"absolutely", "arguably"},
      {"surely", "presumably"},
      {"proves", "suggests"},
      {"everyone", "most people"},
  };
  return map;
}

const Map& intensifications() {
  static const Map map = {{"good", "excellent"},
                          {"great", "outstanding"},
                          {"nice", "wonderful"},
                          {"bad", "terrible"},
                          {"poor", "dismal"},
                          {"big", "enormous"},
                          {"large", "massive"},
                          {"small", "tiny"},
                          {"important", "crucial"},
                          {"interesting", "fascinating"},
                          {"happy", "thrilled"},
                          {"sad", "heartbroken"},
                          {"angry", "furious"},
                          {"tired", "exhausted"},
                          {"scared", "terrified"},
                          {"afraid", "terrified"},
                          {"surprised", "astonished"},
                          {"hungry", "starving"},
                          {"dirty", "filthy"},
                          {"beautiful", "stunning"},
                          {"funny", "hilarious"},
                          {"smart", "brilliant"},
                          {"ugly", "hideous"},
                          {"difficult", "grueling"},
                          {"easy", "effortless"},
                          {"weak", "feeble"},
                          {"many", "countless"},
                          {"serious", "grave"},
                          {"dramatic", "spectacular"},
                          {"significant", "tremendous"},
                          {"famous", "legendary"},
                          {"expensive", "exorbitant"},
                          {"very", "extremely"},
                          {"really", "absolutely"},
                          {"fairly", "remarkably"},
                          {"worried", "terrified"},
                          {"upset", "devastated"},
                          {"pleased", "delighted"},
                          {"excited", "thrilled"},
                          {"shocked", "stunned"},
                          {"better", "far better"},
                          {"worse", "far worse"},
                          {"best", "very best"},
                          {"worst", "very worst"},
                          {"clear", "crystal-clear"},
                          {"useful", "invaluable"},
                          {"strong", "formidable"},
                          {"helpful", "invaluable"},
                          {"impressive", "astounding"},
                          {"successful", "triumphant"},
                          {"popular", "wildly popular"},
                          {"unusual", "extraordinary"},
                          {"bright", "dazzling"},
                          {"sure", "absolutely certain"}};
  return map;
}

const Set& gradables() {
  static const Set set = make_set(
      {"dramatic",    "important",     "significant", "interesting", "powerful",      "serious",
       "successful",  "popular",       "famous",      "impressive",  "beautiful",     "difficult",
       "expensive",   "dangerous",     "effective",   "influential", "remarkable",    "memorable",
       "valuable",    "controversial", "ambitious",   "detailed",    "comprehensive", "thorough",
       "careful",     "useful",        "exciting",    "surprising",  "shocking",      "unusual",
       "severe",      "brutal",        "violent",     "devastating", "tragic",        "emotional",
       "extensive",   "notable",       "prominent",   "promising",   "talented",      "experienced",
       "creative",    "innovative",    "elegant",     "convincing",  "compelling",    "rigorous",
       "challenging", "complex",       "complicated", "critical",    "rare",          "generous",
       "wealthy",     "luxurious",     "honest",      "intense",     "famous",        "valuable",
       "respected",   "high-profile",  "unique",      "clear",       "simple",        "efficient",
       "accurate",    "reliable",      "robust",      "novel",       "strong",        "costly"});
  return set;
}

// ---- rephrase ----------------------------------------------------------------------------------

// Curated synonyms by part of speech; verbs list every form so no inflection is guessed.
const WordTable<Synonym>& curated_synonyms() {
  static const WordTable<Synonym> map = [] {
    WordTable<Synonym> m;
    auto add = [&](Pos pos,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> pairs) {
      for (auto [from, to] : pairs) m.emplace(from, Synonym{std::string(to), pos});
    };
    add(Pos::kVerb, {{"said", "stated"},
                     {"says", "states"},
                     {"helps", "assists"},
                     {"helped", "assisted"},
                     {"buy", "purchase"},
                     {"buys", "purchases"},
                     {"bought", "purchased"},
                     {"buying", "purchasing"},
                     {"tries", "attempts"},
                     {"tried", "attempted"},
                     {"trying", "attempting"},
                     {"seem", "appear"},
                     {"seems", "appears"},
                     {"seemed", "appeared"},
                     {"allow", "permit"},
                     {"allows", "permits"},
                     {"allowed", "permitted"},
                     {"allowing", "permitting"},
                     {"choose", "select"},
                     {"chooses", "selects"},
                     {"chose", "selected"},
                     {"chosen", "selected"},
                     {"choosing", "selecting"},
                     {"reveal", "disclose"},
                     {"reveals", "discloses"},
                     {"revealed", "disclosed"},
                     {"revealing", "disclosing"},
                     {"announced", "declared"},
                     {"announces", "declares"},
                     {"propose", "suggest"},
                     {"proposes", "suggests"},
                     {"proposed", "suggested"},
                     {"proposing", "suggesting"},
                     {"showed", "demonstrated"},
                     {"shown", "demonstrated"},
                     {"utilize", "use"},
                     {"utilizes", "uses"},
                     {"utilized", "used"},
                     {"achieve", "attain"},
                     {"achieves", "attains"},
                     {"achieved", "attained"},
                     {"improve", "enhance"},
                     {"improves", "enhances"},
                     {"improved", "enhanced"},
                     {"improving", "enhancing"},
                     {"investigate", "examine"},
                     {"investigates", "examines"},
                     {"investigated", "examined"},
                     {"investigating", "examining"},
                     {"provide", "offer"},
                     {"provides", "offers"},
                     {"require", "need"},
                     {"requires", "needs"},
                     {"assisted", "helped"},
                     {"purchased", "bought"},
                     {"attempted", "tried"},
                     {"died", "passed away"},
                     {"dies", "passes away"},
                     {"begin", "start"},
                     {"begins", "starts"},
                     {"began", "started"},
                     {"examine", "inspect"},
                     {"examined", "inspected"},
                     {"claimed", "asserted"},
                     {"claims", "asserts"},
                     {"arrested", "detained"},
                     {"injured", "hurt"},
                     {"think", "believe"},
                     {"thinks", "believes"},
                     {"guess", "suppose"},
                     {"guessed", "supposed"},
                     {"talking", "speaking"},
                     {"enjoy", "like"},
                     {"enjoys", "likes"},
                     {"enjoyed", "liked"}});
    add(Pos::kNoun, {{"children", "kids"},     {"child", "kid"},          {"kids", "children"},
                     {"lawyer", "attorney"},   {"lawyers", "attorneys"},  {"attorney", "lawyer"},
                     {"attorneys", "lawyers"}, {"movie", "film"},         {"movies", "films"},
                     {"photo", "picture"},     {"photos", "pictures"},    {"trip", "journey"},
                     {"journey", "trip"},      {"student", "pupil"},      {"students", "pupils"},
                     {"doctor", "physician"},  {"doctors", "physicians"}, {"idea", "notion"},
                     {"ideas", "notions"},     {"problem", "issue"},      {"problems", "issues"},
                     {"mistake", "error"},     {"mistakes", "errors"},    {"error", "mistake"},
                     {"errors", "mistakes"},   {"car", "vehicle"},        {"cars", "vehicles"},
                     {"illness", "disease"},   {"remarks", "comments"},   {"comments", "remarks"},
                     {"incident", "episode"},  {"gifts", "presents"},     {"victims", "casualties"},
                     {"employees", "staff"},   {"tourists", "visitors"}});
    add(Pos::kAdj, {{"big", "large"},
                    {"large", "big"},
                    {"huge", "enormous"},
                    {"enormous", "huge"},
                    {"whole", "entire"},
                    {"entire", "whole"},
                    {"simple", "straightforward"},
                    {"difficult", "hard"},
                    {"rapid", "quick"},
                    {"quick", "rapid"},
                    {"smart", "clever"},
                    {"clever", "smart"},
                    {"famous", "well-known"},
                    {"well-known", "famous"},
                    {"various", "diverse"},
                    {"primary", "main"},
                    {"main", "primary"},
                    {"additional", "further"},
                    {"sad", "unhappy"},
                    {"important", "significant"},
                    {"wealthy", "rich"},
                    {"rich", "wealthy"},
                    {"angry", "upset"},
                    {"scared", "frightened"},
                    {"frightened", "scared"},
                    {"former", "previous"},
                    {"previous", "former"},
                    {"dangerous", "hazardous"},
                    {"tiny", "minuscule"},
                    {"obvious", "evident"},
                    {"several", "a number of"},
                    {"older", "elderly"},
                    {"elderly", "older"},
                    {"great", "wonderful"},
                    {"interesting", "intriguing"},
                    {"amazing", "incredible"},
                    {"awesome", "amazing"},
                    {"favorite", "preferred"},
                    {"funny", "amusing"}});
    add(Pos::kAdv, {{"quickly", "rapidly"},
                    {"rapidly", "quickly"},
                    {"often", "frequently"},
                    {"frequently", "often"},
                    {"nearly", "almost"},
                    {"almost", "nearly"},
                    {"maybe", "perhaps"},
                    {"perhaps", "maybe"},
                    {"mostly", "largely"},
                    {"largely", "mostly"},
                    {"therefore", "thus"},
                    {"thus", "therefore"},
                    {"although", "though"},
                    {"moreover", "furthermore"},
                    {"furthermore", "moreover"},
                    {"approximately", "roughly"},
                    {"roughly", "approximately"},
                    {"completely", "entirely"},
                    {"entirely", "completely"},
                    {"currently", "presently"},
                    {"finally", "eventually"},
                    {"eventually", "finally"},
                    {"quite", "rather"},
                    {"totally", "completely"},
                    {"extremely", "exceedingly"},
                    {"particularly", "especially"},
                    {"especially", "particularly"},
                    {"later", "subsequently"},
                    {"safely", "securely"},
                    {"really", "truly"},
                    {"yeah", "yes"},
                    {"probably", "likely"}});
    return m;
  }();
  return map;
}

const Set& rephrase_blocked() {
  static const Set set = make_set(
      {"say",      "said",  "says",   "tell",    "told",    "get",      "got",       "make",
       "made",     "take",  "took",   "go",      "went",    "come",     "came",      "give",
       "gave",     "know",  "knew",   "think",   "thought", "see",      "saw",       "look",
       "looked",   "like",  "just",   "well",    "very",    "really",   "good",      "new",
       "old",      "first", "last",   "year",    "years",   "time",     "day",       "way",
       "man",      "men",   "woman",  "women",   "people",  "thing",    "things",    "lot",
       "fire",     "fired", "back",   "part",    "place",   "set",      "put",       "run",
       "ran",      "show",  "state",  "states",  "case",    "point",    "world",     "work",
       "team",     "game",  "season", "play",    "played",  "player",   "record",    "lead",
       "led",      "left",  "right",  "long",    "high",    "top",      "number",    "group",
       "side",     "end",   "head",   "want",    "need",    "use",      "used",      "found",
       "find",     "keep",  "kept",   "home",    "still",   "even",     "only",      "mean",
       "means",    "meant", "kind",   "sort",    "love",    "hope",     "wish",      "cup",
       "goal",     "hit",   "shot",   "charge",  "charged", "court",    "deal",      "sure",
       "cool",     "fine",  "yes",    "okay",    "bit",     "second",   "minute",    "hour",
       "week",     "month", "today",  "tonight", "live",    "lives",    "life",      "born",
       "name",     "named", "called", "call",    "pretty",  "much",     "rest",      "less",
       "least",    "sense", "mind",   "matter",  "fact",    "watch",    "read",      "told",
       "movie",    "film",  "book",   "song",    "music",   "series",   "star",      "stars",
       "club",     "house", "office", "police",  "officer", "officers", "president", "minister",
       "hard",     "girl",  "girls",  "boy",     "boys",    "miss",     "final",     "manager",
       "director", "coach", "chief",  "boss",    "leader",  "captain",  "official",  "officials",
       "striker",  "side",  "host",   "match",   "party",   "bill",     "order",     "ordered",
       "cover",    "cell",  "field"});
  return set;
}

const Set& subordinators() {
  static const Set set =
      make_set({"because", "although", "though", "while", "when", "whereas", "unless", "if"});
  return set;
}

const Set& split_words() {
  static const Set set = [] {
    Set s;
    // Not "of": "a spot of" leaves a dangling head; "of" rarely starts a clean tail.
    prepositions().for_each([&s](std::string_view w) {
      if (w != "of") s.insert(w);
    });
    for (auto w : {"and", "but", "while", "because", "as", "when", "who", "which", "that", "after",
                   "before", "where", "although"})
      s.insert(w);
    return s;
  }();
  return set;
}

}  // namespace

// ---- closed classes ----------------------------------------------------------------------------

bool is_function_word(std::string_view word) {
  return contains(function_words(), word);
}
bool is_determiner(std::string_view word) {
  return contains(determiners(), word);
}
bool is_preposition(std::string_view word) {
  return contains(prepositions(), word);
}
bool is_copula(std::string_view word) {
  return contains(copulas(), word);
}
bool is_modal(std::string_view word) {
  return contains(modals(), word);
}
bool is_subject_pronoun(std::string_view word) {
  return contains(subject_pronouns(), word);
}

bool is_abbreviation(std::string_view word) {
  static const Set set = make_set(
      {"mr.",  "mrs.",    "ms.",  "dr.",   "prof.", "sr.",  "jr.",  "st.",  "mt.",   "gen.",
       "col.", "lt.",     "sgt.", "capt.", "gov.",  "sen.", "rep.", "rev.", "hon.",  "vs.",
       "cf.",  "approx.", "no.",  "fig.",  "al.",   "jan.", "feb.", "aug.", "sept.", "oct.",
       "nov.", "dec.",    "inc.", "corp.", "ltd.",  "co.",  "etc."});
  return contains(set, word);
}

bool starts_with_vowel_sound(const std::string& word) {
  if (word.empty()) return false;
  // Exceptions first: a /ju/ or /w/ onset takes "a", a silent h takes "an".
  for (auto p : {"uni", "use", "usu", "uti", "uto", "ure", "eu", "one", "once", "ewe", "ubiq"})
    if (word.starts_with(p)) return false;
  for (auto p : {"hour", "honest", "honor", "honour", "heir"})
    if (word.starts_with(p)) return true;
  return is_vowel(word.front());
}

bool is_common_word(const std::string& word) {
  // WordNet also lists names ("jacksonville"); a SemCor count on some sense marks a word that
  // is used in ordinary running text.
  static WordMemo<bool> memo;
  return memo.get(word, [&word] {
    require_wordnet();
    for (wn::Pos p : kWordNetPos) {
      const std::string base = wn::base_form(word, p);
      if (base.empty()) continue;
      const auto& senses = wn::senses(base, p);
      for (std::size_t k = 0; k < senses.size() && k < 3; ++k)
        if (wn::tag_count(base, p, int(k) + 1) > 0) return true;
    }
    return false;
  });
}

// ---- opinion flip ------------------------------------------------------------------------------

std::string flip_antonym(const std::string& word) {
  if (std::string curated = lookup(antonym_map(), word); !curated.empty()) return curated;
  if (!contains(wordnet_evaluatives(), word)) return {};
  require_wordnet();
  const auto& senses = wn::senses(word, wn::Pos::kAdj);
  if (senses.empty()) return {};
  // Only the most frequent sense: its direct antonym is the evaluative opposite.
  for (const std::string& antonym : wn::sense_antonyms(word, wn::Pos::kAdj, senses.front()))
    if (plain_lower_word(antonym)) return antonym;
  return {};
}

bool is_negatable_evaluative(std::string_view word) {
  return contains(negatable_evaluatives(), word);
}

bool is_recommend_verb(std::string_view word) {
  return word == "recommend" || word == "recommends" || word == "recommended" ||
         word == "recommending" || word == "endorse" || word == "endorses" || word == "endorsed";
}

bool is_verdict_word(std::string_view word) {
  static const Set set =
      make_set({"accept", "accepts", "accepted", "accepting", "acceptance", "reject", "rejects",
                "rejected", "rejecting", "rejection", "acceptable", "unacceptable", "publication"});
  return contains(set, word);
}

bool is_negator(const std::string& word) {
  return std::string_view(word) == "not" || std::string_view(word) == "n't" ||
         !drop_negation(word).empty();
}

std::string drop_negation(const std::string& word) {
  static const Map map = {{"isn't", "is"},         {"aren't", "are"},   {"wasn't", "was"},
                          {"weren't", "were"},     {"don't", "do"},     {"doesn't", "does"},
                          {"didn't", "did"},       {"won't", "will"},   {"wouldn't", "would"},
                          {"can't", "can"},        {"cannot", "can"},   {"couldn't", "could"},
                          {"shouldn't", "should"}, {"hasn't", "has"},   {"haven't", "have"},
                          {"hadn't", "had"},       {"mustn't", "must"}, {"mightn't", "might"}};
  // Every contraction has an apostrophe (straight or curly): most words end here.
  if (word.find('\'') == std::string::npos && word.find("\u2019") == std::string::npos &&
      word != "cannot")
    return {};
  std::string w = word;
  for (std::size_t p = w.find("\u2019"); p != std::string::npos; p = w.find("\u2019"))
    w.replace(p, 3, 1, '\'');
  return lookup(map, w);
}

std::string third_person_singular(const std::string& base) {
  if (base == "have") return "has";
  if (base == "be") return "is";
  return third_person(base);
}

bool is_fixed_collocation(const std::string& word, const std::string& next) {
  static const Set set = make_set(
      {"great britain", "great lakes",   "great depression", "great wall",   "good friday",
       "best man",      "best seller",   "fair trade",       "safe haven",   "great deal",
       "great many",    "great barrier", "best friend",      "best friends", "good morning",
       "good night",    "good luck",     "good evening",     "fair play",    "positive for",
       "negative for"});
  // Their first words, so that most words need no joined copy.
  static const Set firsts = [] {
    Set out;
    set.for_each([&out](std::string_view c) { out.insert(c.substr(0, c.find(' '))); });
    return out;
  }();
  return contains(firsts, word) && contains(set, word + " " + next);
}

// ---- shifts ------------------------------------------------------------------------------------

const std::vector<std::string_view>& openers(Tone tone) {
  static const std::vector<std::string_view> positive = {
      "encouragingly,", "impressively,", "happily,", "fortunately,", "remarkably,", "admirably,"};
  static const std::vector<std::string_view> negative = {
      "unfortunately,", "worryingly,", "regrettably,", "sadly,", "disappointingly,", "alarmingly,"};
  static const std::vector<std::string_view> hedged = {
      "it seems that",   "it appears that",   "arguably,", "apparently,",
      "to some extent,", "in some respects,", "perhaps",   "it is possible that"};
  static const std::vector<std::string_view> strong = {"without a doubt,",
                                                       "undeniably,",
                                                       "unquestionably,",
                                                       "beyond any doubt,",
                                                       "it is absolutely clear that",
                                                       "without question,"};
  return by_tone(tone, positive, negative, hedged, strong);
}

const std::vector<std::string_view>& adjectives(Tone tone) {
  static const std::vector<std::string_view> positive = {"impressive", "remarkable", "excellent",
                                                         "admirable",  "wonderful",  "commendable",
                                                         "valuable",   "encouraging"};
  static const std::vector<std::string_view> negative = {
      "troubling",   "disappointing", "worrying", "regrettable",
      "unfortunate", "questionable",  "dismal",   "deplorable"};
  static const std::vector<std::string_view> none = {};  // hedges and intensifiers use adverbs
  return by_tone(tone, positive, negative, none, none);
}

const std::vector<std::string_view>& adverbs(Tone tone) {
  static const std::vector<std::string_view> positive = {"remarkably", "impressively",
                                                         "wonderfully", "admirably", "genuinely"};
  static const std::vector<std::string_view> negative = {
      "worryingly", "disappointingly", "troublingly", "regrettably", "alarmingly"};
  // Sentence adverbs: they read well before any complement ("is arguably the best").
  static const std::vector<std::string_view> hedged = {"arguably", "possibly", "probably",
                                                       "perhaps"};
  static const std::vector<std::string_view> strong = {"extremely", "absolutely", "truly",
                                                       "incredibly", "exceptionally"};
  return by_tone(tone, positive, negative, hedged, strong);
}

const std::vector<std::string_view>& framings(Tone tone) {
  static const std::vector<std::string_view> positive = {
      "Overall, this is a genuinely impressive and encouraging picture.",
      "All in all, the outcome here is a remarkably positive one.",
      "Taken together, these points paint a very favorable picture.",
      "On the whole, it is an excellent and reassuring account."};
  static const std::vector<std::string_view> negative = {
      "Overall, this is a deeply troubling and disappointing picture.",
      "All in all, the outcome here is a remarkably negative one.",
      "Taken together, these points paint a very unfavorable picture.",
      "On the whole, it is a poor and worrying account."};
  static const std::vector<std::string_view> none = {};
  return by_tone(tone, positive, negative, none, none);
}

std::string hedge_verb(const std::string& word) {
  return lookup(hedge_verbs(), word);
}
std::string soften(const std::string& word) {
  return lookup(softenings(), word);
}
std::string intensify(const std::string& word) {
  return lookup(intensifications(), word);
}
bool is_gradable(std::string_view word) {
  return contains(gradables(), word);
}

// ---- rephrase ----------------------------------------------------------------------------------

WordClasses word_classes(const std::string& word) {
  if (word.empty() || word.size() > 60) return {};
  static WordMemo<WordClasses> memo;
  return memo.get(word, [&word] {
    require_wordnet();
    WordClasses classes;
    classes.noun = !wn::base_form(word, wn::Pos::kNoun).empty();
    classes.verb = !wn::base_form(word, wn::Pos::kVerb).empty();
    classes.adj = !wn::base_form(word, wn::Pos::kAdj).empty();
    classes.adv = !wn::base_form(word, wn::Pos::kAdv).empty();
    return classes;
  });
}

Synonym curated_synonym(const std::string& word) {
  const Synonym* synonym = curated_synonyms().find(word);
  return synonym == nullptr ? Synonym{} : *synonym;
}

namespace {

std::string compute_wordnet_synonym(const std::string& word, Pos pos) {
  require_wordnet();
  const wn::Pos p = wn_pos(pos);
  std::string result;
  const std::string base = wn::base_form(word, p);
  const auto& senses = wn::senses(base, p);
  // Only a frequent first sense (SemCor count >= 5) is trusted to be the meaning in the text.
  if (!senses.empty() && wn::tag_count(base, p, 1) >= 5) {
    int best_count = 0;
    for (const std::string& lemma : wn::synset_words(p, senses.front())) {
      if (lemma == base || !plain_lower_word(lemma) || lemma.size() > base.size() + 6) continue;
      if (is_rephrase_blocked(lemma) || is_function_word(lemma)) continue;
      if (pos == Pos::kVerb && wn::has_irregular_forms(lemma, wn::Pos::kVerb)) continue;
      // The synonym must mean this first of all, and be attested in SemCor about as often as
      // the word itself ("girl" -> "miss" is a first sense of both, but "miss" is rare in it).
      auto [rank, count] = sense_rank(lemma, p, senses.front());
      if (rank != 1 || count < 2 || 4 * count < wn::tag_count(base, p, 1) || count <= best_count)
        continue;
      best_count = count;
      result = lemma;
    }
  }
  // Re-inflect like the original word.
  if (!result.empty() && word != base) {
    if (pos == Pos::kNoun) {
      result = word == plural_regular(base) ? plural_regular(result) : std::string();
    } else if (pos == Pos::kVerb) {
      if (word == third_person(base))
        result = third_person(result);
      else if (word.ends_with("ing"))
        result = gerund_regular(result);
      else
        result = past_regular(result);
    } else {
      result.clear();  // comparatives and superlatives are not re-inflected
    }
  }
  return result;
}

}  // namespace

std::string wordnet_synonym(const std::string& word, Pos pos) {
  if (word.size() < 3 || is_function_word(word) || is_rephrase_blocked(word)) return {};
  static WordMemo<std::string> memo[4];
  return memo[static_cast<int>(pos)].get(word, [&] { return compute_wordnet_synonym(word, pos); });
}

bool is_rephrase_blocked(std::string_view word) {
  return contains(rephrase_blocked(), word);
}
bool is_subordinator(std::string_view word) {
  return contains(subordinators(), word);
}

// ---- elongation --------------------------------------------------------------------------------

std::string_view filler_paragraph() {
  return "Overall, this summary brings together the main points discussed above. Taken as a "
         "whole, these points give a general picture of the topic. Each of them is part of the "
         "broader context described here, and together they round out the overall account.";
}

// ---- degradations ------------------------------------------------------------------------------

bool is_split_word(std::string_view word) {
  return contains(split_words(), word);
}

}  // namespace probity::perturb::lex
