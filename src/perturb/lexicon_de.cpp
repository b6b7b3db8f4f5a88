// The German lexicon of the manipulations (lexicon.hpp, namespace de).
#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perturb/lexicon.hpp"
#include "perturb/word_table.hpp"

namespace probity::perturb::lex::de {
namespace {

using Words = std::vector<std::string_view>;

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

// Adjective or adverb -> its stronger form, and the stem the inflection endings attach to
// ("miserabel": "miserable", "miserablen").
struct Stronger {
  std::string_view base, stem;
};

const WordTable<Stronger>& intensifications() {
  static const WordTable<Stronger> table = [] {
    WordTable<Stronger> t;
    for (auto [from, base, stem] : std::initializer_list<std::array<std::string_view, 3>>{
             {"gut", "hervorragend", "hervorragend"},
             {"schlecht", "miserabel", "miserabl"},
             {"groß", "riesig", "riesig"},
             {"klein", "winzig", "winzig"},
             {"wichtig", "entscheidend", "entscheidend"},
             {"interessant", "faszinierend", "faszinierend"},
             {"schön", "wunderschön", "wunderschön"},
             {"schnell", "blitzschnell", "blitzschnell"},
             {"neu", "brandneu", "brandneu"},
             {"glücklich", "überglücklich", "überglücklich"},
             {"froh", "überglücklich", "überglücklich"},
             {"traurig", "todtraurig", "todtraurig"},
             {"billig", "spottbillig", "spottbillig"},
             {"klar", "glasklar", "glasklar"},
             {"teuer", "sündhaft teuer", "sündhaft teur"},
             {"hoch", "extrem hoch", "extrem hoh"},
             {"schwierig", "äußerst schwierig", "äußerst schwierig"},
             {"stark", "überaus stark", "überaus stark"},
             {"erfolgreich", "äußerst erfolgreich", "äußerst erfolgreich"},
             {"gefährlich", "lebensgefährlich", "lebensgefährlich"},
         }) {
      t.emplace(from, Stronger{base, stem});
    }
    return t;
  }();
  return table;
}

// Evaluative antonyms, both ways: base form and the stem the endings -e, -en, -er, -es, -em
// attach to. Only words whose antonym is evaluative in every common use (not "sicher", which is
// also "surely", nor "gefallen", also the participle of "fallen").
struct Antonym {
  std::string_view base, stem;
};

const WordTable<Antonym>& antonyms() {
  static const WordTable<Antonym> table = [] {
    WordTable<Antonym> t;
    auto pair = [&](std::string_view a, std::string_view a_stem, std::string_view b,
                    std::string_view b_stem) {
      t.emplace(a, Antonym{b, b_stem});
      t.emplace(b, Antonym{a, a_stem});
    };
    auto same = [&](std::string_view a, std::string_view b) { pair(a, a, b, b); };
    same("gut", "schlecht");
    // "besser" -> "schlechter", one way: "schlechter" is mostly "schlecht" inflected ("ein
    // schlechter Film"); the flipper turns "schlechter als" around itself.
    t.emplace("besser", Antonym{"schlechter", "schlechter"});
    same("best", "schlechtest");  // "beste", "am besten"
    same("positiv", "negativ");
    pair("hervorragend", "hervorragend", "miserabel", "miserabl");
    same("ausgezeichnet", "mangelhaft");
    same("exzellent", "katastrophal");
    same("stark", "schwach");
    same("stärker", "schwächer");
    same("korrekt", "inkorrekt");
    same("sinnvoll", "sinnlos");
    same("nützlich", "nutzlos");
    same("erfolgreich", "erfolglos");
    same("wichtig", "unwichtig");
    same("interessant", "uninteressant");
    same("vollständig", "unvollständig");
    same("zuverlässig", "unzuverlässig");
    same("verständlich", "unverständlich");
    same("überzeugend", "unüberzeugend");
    same("gelungen", "misslungen");
    same("angenehm", "unangenehm");
    same("freundlich", "unfreundlich");
    same("zufrieden", "unzufrieden");
    same("glücklich", "unglücklich");
    same("wertvoll", "wertlos");
    same("fair", "unfair");
    same("effizient", "ineffizient");
    same("schön", "hässlich");
    same("beeindruckend", "enttäuschend");
    same("spannend", "langweilig");
    same("erfreulich", "bedauerlich");
    same("optimistisch", "pessimistisch");
    same("vorteilhaft", "nachteilig");
    same("sauber", "schmutzig");
    same("günstig", "ungünstig");
    same("hilfreich", "wenig hilfreich");
    return t;
  }();
  return table;
}

// Nouns and verb forms, whole words (lower-cased; the caller restores the capital).
const WordTable<std::string_view>& antonym_words() {
  static const WordTable<std::string_view> table = [] {
    WordTable<std::string_view> t;
    for (auto [a, b] : std::initializer_list<std::array<std::string_view, 2>>{
             {"vorteil", "nachteil"},
             {"vorteile", "nachteile"},
             {"vorteilen", "nachteilen"},
             {"vorteils", "nachteils"},
             {"stärke", "schwäche"},
             {"stärken", "schwächen"},
             {"erfolg", "misserfolg"},
             {"erfolge", "misserfolge"},
             {"erfolgs", "misserfolgs"},
             {"lob", "kritik"},
             {"lobt", "kritisiert"},
             {"loben", "kritisieren"},
             {"lobte", "kritisierte"},
             {"lobten", "kritisierten"},
             {"gelobt", "kritisiert"},
             {"gefällt", "missfällt"},
             {"gefiel", "missfiel"},
             {"gefielen", "missfielen"},
         }) {
      t.emplace(a, b);
      t.emplace(b, a);
    }
    return t;
  }();
  return table;
}

}  // namespace

std::string flip_antonym(std::string_view word) {
  if (const std::string_view* w = antonym_words().find(word)) return std::string(*w);
  const auto& table = antonyms();
  if (const Antonym* a = table.find(word)) return std::string(a->base);
  for (std::string_view ending : {"e", "en", "er", "es", "em"}) {
    if (word.size() <= ending.size() || !word.ends_with(ending)) continue;
    if (const Antonym* a = table.find(word.substr(0, word.size() - ending.size())))
      return std::string(a->stem) + std::string(ending);
  }
  return {};
}

std::optional<std::string> drop_negation(std::string_view word) {
  if (word == "nicht") return std::string();
  for (std::string_view form : {"kein", "keine", "keinen", "keinem", "keiner", "keines"})
    if (word == form) return std::string(form.substr(1));
  return std::nullopt;
}

bool is_clause_coordinator(std::string_view word) {
  return word == "und" || word == "aber" || word == "sondern" || word == "doch" || word == "oder";
}

std::string_view filler_paragraph() {
  return "Insgesamt führt diese Zusammenfassung die oben besprochenen Hauptpunkte zusammen. Als "
         "Ganzes betrachtet vermitteln diese Punkte ein allgemeines Bild des Themas. Jeder von "
         "ihnen ist Teil des hier beschriebenen größeren Zusammenhangs, und gemeinsam runden sie "
         "die Gesamtdarstellung ab.";
}

const std::vector<std::string_view>& adverbs(Tone tone) {
  static const Words positive = {"erfreulicherweise", "glücklicherweise", "bemerkenswerterweise",
                                 "dankenswerterweise", "zum Glück"};
  static const Words negative = {"leider", "bedauerlicherweise", "unglücklicherweise",
                                 "enttäuschenderweise", "beunruhigenderweise"};
  static const Words hedged = {"vermutlich", "wahrscheinlich", "möglicherweise", "wohl",
                               "anscheinend"};
  static const Words strong = {"zweifellos", "unbestreitbar", "eindeutig", "ganz klar",
                               "ohne jeden Zweifel"};
  return by_tone(tone, positive, negative, hedged, strong);
}

const std::vector<std::string_view>& framings(Tone tone) {
  static const Words positive = {
      "Insgesamt ergibt sich ein ausgesprochen erfreuliches und ermutigendes Bild.",
      "Alles in allem ist das Ergebnis bemerkenswert positiv.",
      "Zusammengenommen zeichnen diese Punkte ein sehr günstiges Bild.",
      "Unterm Strich ist dies eine hervorragende und beruhigende Darstellung."};
  static const Words negative = {
      "Insgesamt ergibt sich ein zutiefst beunruhigendes und enttäuschendes Bild.",
      "Alles in allem ist das Ergebnis bemerkenswert negativ.",
      "Zusammengenommen zeichnen diese Punkte ein sehr ungünstiges Bild.",
      "Unterm Strich ist dies eine schwache und besorgniserregende Darstellung."};
  static const Words none = {};
  return by_tone(tone, positive, negative, none, none);
}

bool is_finite_verb(std::string_view word) {
  static const WordSet set(
      {"ist",     "sind",      "war",       "waren",   "wird",     "werden",     "wurde",
       "wurden",  "hat",       "haben",     "hatte",   "hatten",   "kann",       "können",
       "konnte",  "konnten",   "könnte",    "könnten", "muss",     "müssen",     "musste",
       "mussten", "soll",      "sollen",    "sollte",  "sollten",  "will",       "wollen",
       "wollte",  "wollten",   "darf",      "dürfen",  "durfte",   "dürfte",     "dürften",
       "würde",   "würden",    "wäre",      "wären",   "hätte",    "hätten",     "bleibt",
       "bleiben", "blieb",     "blieben",   "gibt",    "gab",      "gaben",      "zeigt",
       "zeigen",  "zeigte",    "zeigten",   "scheint", "scheinen", "schien",     "bietet",
       "bieten",  "liegt",     "liegen",    "lag",     "steht",    "stehen",     "stand",
       "geht",    "gehen",     "ging",      "kommt",   "kommen",   "kam",        "macht",
       "machen",  "machte",    "gilt",      "galt",    "enthält",  "beschreibt", "erklärt",
       "nennt",   "berichtet", "berichten", "sagt",    "sagte",    "sagten",     "erreicht",
       "führt",   "führte",    "bringt",    "brachte", "braucht",  "brauchen",   "bin",
       "bist",    "seid",      "habe",      "hast"});
  return set.contains(word);
}

bool is_subordinator(std::string_view word) {
  static const WordSet set({"dass",   "weil",  "wenn",    "ob",    "obwohl",  "obgleich",
                            "da",     "als",   "nachdem", "bevor", "damit",   "während",
                            "sodass", "falls", "sobald",  "seit",  "seitdem", "bis",
                            "indem",  "ehe",   "solange", "wie",   "wo",      "wer",
                            "was",    "warum", "weshalb", "wieso", "deren",   "dessen"});
  return set.contains(word);
}

std::string soften(std::string_view word) {
  static const WordTable<std::string> table = [] {
    WordTable<std::string> t;
    for (auto [from, to] : std::initializer_list<std::pair<std::string_view, std::string_view>>{
             {"sicherlich", "vermutlich"},
             {"zweifellos", "vermutlich"},
             {"zweifelsohne", "vermutlich"},
             {"eindeutig", "möglicherweise"},
             {"definitiv", "wahrscheinlich"},
             {"offensichtlich", "anscheinend"},
             {"unbestreitbar", "wohl"},
             {"immer", "oft"},
             {"stets", "meist"},
             {"nie", "selten"},
             {"niemals", "selten"},
             {"völlig", "weitgehend"},
             {"vollständig", "weitgehend"},
             {"komplett", "weitgehend"},
             {"sehr", "recht"},
             {"äußerst", "ziemlich"},
             {"extrem", "ziemlich"},
             {"alle", "die meisten"},
             {"allen", "den meisten"},
             {"aller", "der meisten"},
             {"jeder", "fast jeder"},
             {"jede", "fast jede"},
             {"jedes", "fast jedes"},
             {"jeden", "fast jeden"},
             {"jedem", "fast jedem"},
         }) {
      t.emplace(from, std::string(to));
    }
    return t;
  }();
  const std::string* found = table.find(word);
  return found == nullptr ? std::string() : *found;
}

std::string intensify(std::string_view word) {
  if (word == "sehr") return "äußerst";
  if (word == "ziemlich") return "überaus";
  if (word == "viele") return "unzählige";
  if (word == "vielen") return "unzähligen";
  if (word == "vieler") return "unzähliger";
  const auto& table = intensifications();
  if (const Stronger* s = table.find(word)) return std::string(s->base);
  // Inflected: the stem plus -e, -en, -er, -es, -em ("gute", "großen", "kleiner").
  for (std::string_view ending : {"e", "en", "er", "es", "em"}) {
    if (word.size() <= ending.size() || !word.ends_with(ending)) continue;
    std::string_view stem = word.substr(0, word.size() - ending.size());
    const Stronger* s = table.find(stem);
    // "hoh-e" and "teur-e" inflect a changed stem.
    if (s == nullptr && stem == "hoh") s = table.find("hoch");
    if (s == nullptr && stem == "teur") s = table.find("teuer");
    if (s != nullptr) return std::string(s->stem) + std::string(ending);
  }
  return {};
}

}  // namespace probity::perturb::lex::de
