"""Content of weserwelle-satzung.docx: the statutes of a fictitious rowing club (CC-BY-SA 4.0)."""

TITLE = "Satzung des Rudervereins Weserwelle Bremen e.V."
VERSION = "Beschlossen von der Mitgliederversammlung am 22. März 2024"

SECTIONS = [
    ("§ 1 Name, Sitz und Geschäftsjahr", [
        "Der Verein führt den Namen „Ruderverein Weserwelle Bremen e.V.“. Er ist im Vereinsregister des "
        "Amtsgerichts Bremen unter der Nummer VR 4711 eingetragen.",
        "Der Verein hat seinen Sitz in Bremen. Das Bootshaus liegt am Deichweg 7, 28199 Bremen.",
        "Das Geschäftsjahr ist das Kalenderjahr.",
    ]),
    ("§ 2 Zweck des Vereins", [
        "Zweck des Vereins ist die Förderung des Sports, insbesondere des Ruderns als Breiten- und "
        "Leistungssport sowie der Jugendarbeit.",
        "Der Verein ist selbstlos tätig; er verfolgt nicht in erster Linie eigenwirtschaftliche Zwecke. "
        "Mittel des Vereins dürfen nur für die satzungsmäßigen Zwecke verwendet werden.",
    ]),
    ("§ 3 Mitgliedschaft", [
        "Mitglied kann jede natürliche Person werden, die schwimmen kann. Der Nachweis erfolgt durch das "
        "Deutsche Schwimmabzeichen in Bronze oder eine gleichwertige Bescheinigung.",
        "Der Aufnahmeantrag ist schriftlich an den Vorstand zu richten. Bei Minderjährigen muss der Antrag "
        "von den gesetzlichen Vertretern unterschrieben werden.",
        "Über die Aufnahme entscheidet der Vorstand innerhalb von vier Wochen. Eine Ablehnung muss nicht "
        "begründet werden.",
    ]),
    ("§ 4 Beiträge", [
        "Die Mitglieder zahlen einen Jahresbeitrag und bei Eintritt eine einmalige Aufnahmegebühr von "
        "50 Euro. Die Höhe der Beiträge beschließt die Mitgliederversammlung.",
        "Der Jahresbeitrag ist bis zum 31. Januar eines jeden Jahres fällig und wird per Lastschrift eingezogen.",
        "Jedes volljährige Mitglied leistet jährlich acht Arbeitsstunden am Bootshaus oder an den Booten. "
        "Für jede nicht geleistete Arbeitsstunde werden 15 Euro berechnet.",
    ]),
    ("§ 5 Ende der Mitgliedschaft", [
        "Die Mitgliedschaft endet durch Austritt, Ausschluss oder Tod.",
        "Der Austritt ist nur zum Ende eines Geschäftsjahres möglich. Er muss dem Vorstand bis zum "
        "30. September schriftlich erklärt werden.",
        "Ein Mitglied kann ausgeschlossen werden, wenn es trotz zweimaliger Mahnung mit mehr als einem "
        "Jahresbeitrag im Rückstand ist oder dem Ansehen des Vereins schwer schadet.",
    ]),
    ("§ 6 Organe des Vereins", [
        "Organe des Vereins sind:",
        "- die Mitgliederversammlung,",
        "- der Vorstand,",
        "- der Ältestenrat.",
    ]),
    ("§ 7 Mitgliederversammlung", [
        "Die ordentliche Mitgliederversammlung findet einmal jährlich im ersten Quartal statt.",
        "Sie wird vom Vorstand mit einer Frist von drei Wochen durch E-Mail oder Aushang im Bootshaus "
        "unter Angabe der Tagesordnung einberufen.",
        "Die Mitgliederversammlung ist ohne Rücksicht auf die Zahl der erschienenen Mitglieder beschlussfähig. "
        "Stimmberechtigt sind Mitglieder ab 16 Jahren.",
        "Beschlüsse werden mit einfacher Mehrheit gefasst. Satzungsänderungen bedürfen einer Mehrheit von "
        "zwei Dritteln der abgegebenen Stimmen.",
        "Über die Versammlung ist ein Protokoll anzufertigen, das der Versammlungsleiter und der "
        "Protokollführer unterschreiben.",
    ]),
    ("§ 8 Vorstand", [
        "Der Vorstand besteht aus dem ersten Vorsitzenden, dem zweiten Vorsitzenden, dem Kassenwart und "
        "dem Ruderwart.",
        "Der Vorstand wird von der Mitgliederversammlung für die Dauer von zwei Jahren gewählt. Er bleibt "
        "bis zur Neuwahl im Amt.",
        "Der Verein wird gerichtlich und außergerichtlich durch zwei Vorstandsmitglieder gemeinsam vertreten.",
        "Erster Vorsitzender ist derzeit Henrik Brandt, Kassenwartin ist Merle Osterkamp.",
    ]),
    ("§ 9 Auflösung des Vereins", [
        "Die Auflösung des Vereins kann nur in einer eigens dazu einberufenen Mitgliederversammlung mit einer "
        "Mehrheit von drei Vierteln der abgegebenen Stimmen beschlossen werden.",
        "Bei Auflösung fällt das Vermögen des Vereins an den Landessportbund Bremen e.V., der es "
        "unmittelbar und ausschließlich für gemeinnützige Zwecke zu verwenden hat.",
    ]),
]

FEES_CAPTION = "Anlage: Beitragsordnung (Jahresbeiträge ab 2024)"
FEES = [
    ("Beitragsgruppe", "Jahresbeitrag", "Aufnahmegebühr"),
    ("Erwachsene", "240 Euro", "50 Euro"),
    ("Jugendliche bis 18 Jahre", "96 Euro", "keine"),
    ("Studierende und Auszubildende", "120 Euro", "25 Euro"),
    ("Familien", "420 Euro", "75 Euro"),
    ("Fördermitglieder", "60 Euro", "keine"),
]
