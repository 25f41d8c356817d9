package normalize

import (
	"regexp"
	"strings"
)

// The gender of French and Spanish nouns after a number that ends in
// one: "21 pages" is "vingt et une pages", "21 años" "veintiún años",
// "21 personas" "veintiuna personas".

// frFeminine are common feminine nouns counted with numbers; words ending
// as in frFeminineEndings are feminine too.
var frFeminine = words("heure heures minute minutes seconde secondes personne personnes fois semaine semaines " +
	"année années journée journées page pages femme femmes fille filles ville villes maison maisons voiture voitures " +
	"chose choses place places porte portes pièce pièces étoile étoiles lettre lettres nuit nuits tonne tonnes " +
	"bouteille bouteilles chambre chambres classe classes étape étapes partie parties question questions réponse " +
	"réponses raison raisons victoire victoires tasse tasses sœur sœurs mère mères voix photo photos table tables " +
	"fleur fleurs semaine course courses équipe équipes minute langue langues rue rues ligne lignes fenêtre fenêtres " +
	"salle salles histoire histoires chanson chansons idée idées place église églises école écoles boîte boîtes " +
	"pomme pommes balle balles carte cartes image images tranche tranches part parts livre-sterling élève")

var frFeminineEndingRE = regexp.MustCompile(`(tion|sion|té|ette|ance|ence|aine|elle|ise|ure|ade|oire)s?$`)

// frNounGender returns 'f' for a feminine French noun, 0 otherwise.
func frNounGender(w string) byte {
	if frFeminine[w] || len(w) > 4 && frFeminineEndingRE.MatchString(w) && !frMasculine[w] {
		return 'f'
	}
	return 0
}

// frMasculine are masculine nouns with a feminine ending.
var frMasculine = words("été étés comité comités côté côtés pâté musée lycée murmure")

// frOneBefore makes "un" at the end of a number "une" before a feminine
// noun.
func frOneBefore(say string, g byte) string {
	if g == 'f' && (say == "un" || strings.HasSuffix(say, " un") || strings.HasSuffix(say, "-un")) {
		return say + "e"
	}
	return say
}

// esNotNouns are words after a number that are not the noun it counts.
var esNotNouns = words("de del y o u e a al en por para con sin que es son era más menos x entre sobre hasta desde " +
	"como the la las el los lo le les se su sus mi mis tu tus ni pero si no ya muy")

// esFeminine are feminine nouns whose ending does not say so; esMasculine
// masculine nouns ending in -a.
var (
	esFeminine = words("vez veces noche noches calle calles clase clases mujer mujeres ley leyes flor flores parte partes " +
		"gente llave llaves nave naves red redes piel pieles imagen imágenes tarde tardes muerte suerte madre madres " +
		"carne frase frases base bases fuente fuentes mente serie series especie especies razón razones canción " +
		"canciones torre torres nube nubes sal leche mano manos foto fotos moto motos radio")
	esMasculine = words("día días mapa mapas problema problemas tema temas sistema sistemas programa programas idioma " +
		"idiomas clima planeta planetas poeta poetas cometa cometas sofá sofás tranvía tranvías")
	esFeminineEndingRE = regexp.MustCompile(`(a|as|ción|ciones|sión|siones|dad|dades|tad|tades|tud|tudes|umbre|umbres)$`)
)

// esNounGender returns 'f' or 'm' for a lower-case Spanish word after a
// number, 0 for a word that is not a noun.
func esNounGender(w string) byte {
	switch {
	case w == "" || esNotNouns[w] || !isLowerWord(w):
		return 0
	case esMasculine[w]:
		return 'm'
	case esFeminine[w] || esFeminineEndingRE.MatchString(w):
		return 'f'
	}
	return 'm'
}

// isLowerWord reports a word of lower-case letters.
func isLowerWord(w string) bool {
	for _, r := range w {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzáéíóúüñ", r) {
			return false
		}
	}
	return true
}

// esOneBefore makes a number ending in "uno" agree with its noun:
// "veintiún años", "una hermana", "treinta y una personas".
func esOneBefore(say string, g byte) string {
	if !strings.HasSuffix(say, "uno") {
		return say
	}
	if g == 'f' {
		return strings.TrimSuffix(say, "o") + "a"
	}
	return esApocope(say)
}
