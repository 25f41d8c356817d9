package normalize

// The usual abbreviations and titles of German, French and Spanish, as
// their style guides (Duden, the Imprimerie nationale's lexicon, the
// RAE's list) give them.

var deAbbreviations = abbrevLists{
	anywhere: []string{"usw.=und so weiter", "bzw.=beziehungsweise", "d. h.=das heißt", "z. B.=zum Beispiel",
		"u. a.=unter anderem", "ca.=circa", "evtl.=eventuell", "ggf.=gegebenenfalls", "inkl.=inklusive",
		"exkl.=exklusive", "zzgl.=zuzüglich", "vgl.=vergleiche", "bspw.=beispielsweise", "etc.=et cetera",
		"v. a.=vor allem", "o. Ä.=oder Ähnliches", "u. Ä.=und Ähnliches", "u. U.=unter Umständen", "z. T.=zum Teil",
		"s. o.=siehe oben", "s. u.=siehe unten", "m. E.=meines Erachtens", "i. d. R.=in der Regel",
		"z. Zt.=zurzeit", "z. Hd.=zu Händen", "u. v. m.=und vieles mehr", "u.=und", "v. Chr.=vor Christus", "n. Chr.=nach Christus",
		"Jh.=Jahrhundert", "Jhd.=Jahrhundert", "Str.=Straße", "bzgl.=bezüglich", "allg.=allgemein", "Abb.=Abbildung",
		"Hbf.=Hauptbahnhof", "geb.=geboren", "gest.=gestorben", "Fa.=Firma", "Hrsg.=Herausgeber", "ugs.=umgangssprachlich",
		"gem.=gemäß", "mind.=mindestens", "max.=maximal", "Tsd.=Tausend", "e. V.=eingetragener Verein",
		"Dipl.-Ing.=Diplomingenieur", "Dr. med.=Doktor med", "Dr. med. dent.=Doktor med dent", "i. A.=im Auftrag", "u. ä.=und ähnlich", "sog.=sogenannt", "Std.=Stunden",
		"Mio.=Millionen", "Mrd.=Milliarden", "insb.=insbesondere", "usf.=und so fort", "zz.=zurzeit", "ff.=folgende"},
	names: []string{"Hr.=Herr", "Hrn.=Herrn", "Fr.=Frau", "Frl.=Fräulein", "Dr.=Doktor", "Prof.=Professor",
		"St.=Sankt", "Dipl.=Diplom", "Ing.=Ingenieur"},
	numbers: []string{"Nr.=Nummer", "S.=Seite", "Abs.=Absatz", "Kap.=Kapitel", "Bd.=Band", "Art.=Artikel",
		"Mo.=Montag", "Di.=Dienstag", "Mi.=Mittwoch", "Do.=Donnerstag", "Sa.=Samstag", "So.=Sonntag", "lt.=laut"},
	phones:    []string{"Tel.=Telefon", "Tel=Telefon", "Fax=Fax", "Mobil=Mobil", "Handy=Handy"},
	elsewhere: []string{"Fr.=Freitag"},
}

var frAbbreviations = abbrevLists{
	anywhere: []string{"Mme=Madame", "Mmes=Mesdames", "Mlle=Mademoiselle", "Mlles=Mesdemoiselles",
		"etc.=et cetera", "p. ex.=par exemple", "c.-à-d.=c'est-à-dire", "c.à.d.=c'est-à-dire",
		"av. J.-C.=avant Jésus-Christ", "apr. J.-C.=après Jésus-Christ", "J.-C.=Jésus-Christ", "env.=environ",
		"cf.=confer", "hab.=habitants", "n°=numéro", "N°=numéro", "nº=numéro", "Nº=numéro", "ex.=exemple",
		"Cie=compagnie", "Sté=société", "qqn=quelqu'un", "qqch.=quelque chose", "qqch=quelque chose",
		"svp=s'il vous plaît", "SVP=s'il vous plaît", "rdv=rendez-vous", "min.=minimum", "max.=maximum",
		"réf.=référence", "NB=nota bene", "N.B.=nota bene", "id.=idem", "ibid.=ibidem", "op. cit.=opere citato"},
	names: []string{"M.=Monsieur", "MM.=Messieurs", "Dr=docteur", "Dr.=docteur", "Drs=docteurs", "Pr=professeur",
		"Pr.=professeur", "Me=maître", "Mgr=monseigneur", "St=saint", "Ste=sainte", "St.=saint", "Ste.=sainte",
		"bd=boulevard", "bd.=boulevard", "av.=avenue", "pl.=place", "Vve=veuve"},
	numbers: []string{"p.=page", "pp.=pages", "chap.=chapitre", "vol.=volume", "art.=article", "fig.=figure",
		"t.=tome", "éd.=édition", "no=numéro", "No=numéro"},
	phones: []string{"tél.=téléphone", "Tél.=téléphone", "tel.=téléphone", "Tel.=téléphone", "fax=fax", "Fax=fax"},
}

var esAbbreviations = abbrevLists{
	anywhere: []string{"Ud.=usted", "Uds.=ustedes", "Vd.=usted", "Vds.=ustedes", "etc.=etcétera",
		"p. ej.=por ejemplo", "aprox.=aproximadamente", "a. C.=antes de Cristo", "d. C.=después de Cristo",
		"a. de C.=antes de Cristo", "d. de C.=después de Cristo", "EE. UU.=Estados Unidos", "S. A.=sociedad anónima",
		"admón.=administración", "dcha.=derecha", "izq.=izquierda", "izqda.=izquierda", "máx.=máximo", "mín.=mínimo",
		"cía.=compañía", "Cía.=compañía", "depto.=departamento", "dpto.=departamento", "ej.=ejemplo",
		"n.º=número", "nº=número", "N.º=número", "Nº=número", "aprox=aproximadamente", "atte.=atentamente",
		"vs.=versus", "c. c.=con copia", "q. e. p. d.=que en paz descanse", "s. f.=sin fecha", "ed.=edición"},
	names: []string{"Sr.=señor", "Sra.=señora", "Srta.=señorita", "Sres.=señores", "Sras.=señoras",
		"Dr.=doctor", "Dra.=doctora", "Dres.=doctores", "D.=don", "Dña.=doña", "Da.=doña", "Lic.=licenciado",
		"Lcdo.=licenciado", "Lcda.=licenciada", "Ing.=ingeniero", "Prof.=profesor", "Profa.=profesora",
		"Avda.=avenida", "Av.=avenida", "C/=calle", "Sta.=santa", "Sto.=santo", "Pza.=plaza", "Mons.=monseñor"},
	numbers: []string{"pág.=página", "págs.=páginas", "núm.=número", "nro.=número", "cap.=capítulo",
		"art.=artículo", "vol.=volumen", "fig.=figura", "p.=página", "pp.=páginas"},
	phones: []string{"tel.=teléfono", "Tel.=teléfono", "tlf.=teléfono", "Tlf.=teléfono", "tfno.=teléfono", "Tfno.=teléfono"},
}
